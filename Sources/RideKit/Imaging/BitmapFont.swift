/// A tiny bitmap font (5 × 7 pixels a glyph, drawn for bikeride) for the figures on server-drawn images: digits,
/// Latin capitals and the punctuation of figures ("12.3 KM · 1:02 H"). Lower-case letters are drawn as capitals;
/// anything else as a box, so an unexpected character shows instead of vanishing.
///
///     var canvas = RGBACanvas(width: 200, height: 40)
///     BitmapFont.draw("12.3 km", on: &canvas, x: 4, y: 4, scale: 4, color: RGBAColor(red: 0, green: 0, blue: 0))
///     BitmapFont.width(of: "12.3 km", scale: 4)  // 164: 7 cells of 6 × 4 pixels, without the last gap
///
/// O(characters × scale²).
public enum BitmapFont {
    /// Glyph cell in font pixels; a character advances `glyphWidth + 1`.
    public static let glyphWidth = 5
    public static let glyphHeight = 7

    /// The rows of each glyph, top first, `#` for ink.
    static let rows: [Character: [String]] = [
        "0": [".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."],
        "1": ["..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."],
        "2": [".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"],
        "3": ["####.", "....#", "....#", ".###.", "....#", "....#", "####."],
        "4": ["...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."],
        "5": ["#####", "#....", "####.", "....#", "....#", "#...#", ".###."],
        "6": ["..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."],
        "7": ["#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."],
        "8": [".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."],
        "9": [".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."],
        "A": [".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
        "B": ["####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."],
        "C": [".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."],
        "D": ["###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."],
        "E": ["#####", "#....", "#....", "####.", "#....", "#....", "#####"],
        "F": ["#####", "#....", "#....", "####.", "#....", "#....", "#...."],
        "G": [".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"],
        "H": ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"],
        "I": [".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."],
        "J": ["..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."],
        "K": ["#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"],
        "L": ["#....", "#....", "#....", "#....", "#....", "#....", "#####"],
        "M": ["#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"],
        "N": ["#...#", "#...#", "##..#", "#.#.#", "#..##", "#...#", "#...#"],
        "O": [".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
        "P": ["####.", "#...#", "#...#", "####.", "#....", "#....", "#...."],
        "Q": [".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"],
        "R": ["####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"],
        "S": [".####", "#....", "#....", ".###.", "....#", "....#", "####."],
        "T": ["#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."],
        "U": ["#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."],
        "V": ["#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."],
        "W": ["#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."],
        "X": ["#...#", "#...#", ".#.#.", "..#..", ".#.#.", "#...#", "#...#"],
        "Y": ["#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."],
        "Z": ["#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"],
        " ": [".....", ".....", ".....", ".....", ".....", ".....", "....."],
        ".": [".....", ".....", ".....", ".....", ".....", ".##..", ".##.."],
        ",": [".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."],
        ":": [".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."],
        "·": [".....", ".....", ".....", "..#..", ".....", ".....", "....."],
        "-": [".....", ".....", ".....", "#####", ".....", ".....", "....."],
        "/": [".....", "....#", "...#.", "..#..", ".#...", "#....", "....."],
        "%": ["##...", "##..#", "...#.", "..#..", ".#...", "#..##", "...##"],
        "(": ["...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."],
        ")": [".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."],
        "'": ["..#..", "..#..", ".#...", ".....", ".....", ".....", "....."],
        "+": [".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."],
    ]

    /// Drawn for a character the font does not have.
    static let box = ["#####", "#...#", "#...#", "#...#", "#...#", "#...#", "#####"]

    /// The glyph of `character` as 7 rows of 5 booleans (true: ink).
    public static func glyph(_ character: Character) -> [[Bool]] {
        let upper = character.isLowercase ? Character(character.uppercased()) : character
        return (rows[upper] ?? box).map { $0.map { $0 == "#" } }
    }

    /// Whether the font has a glyph of its own for `character` (after lower-case is drawn as upper-case).
    public static func hasGlyph(_ character: Character) -> Bool {
        rows[character.isLowercase ? Character(character.uppercased()) : character] != nil
    }

    /// The width in pixels of `text` drawn at `scale` (pixels per font pixel).
    public static func width(of text: String, scale: Int) -> Int {
        let count = text.count
        return count == 0 ? 0 : (count * (glyphWidth + 1) - 1) * scale
    }

    /// Draws `text` with its top left at (`x`, `y`), each font pixel a `scale` × `scale` square; pixels outside
    /// the canvas are left out.
    public static func draw(_ text: String, on canvas: inout RGBACanvas, x: Int, y: Int, scale: Int, color: RGBAColor) {
        let scale = max(1, min(64, scale))
        var left = x
        for character in text {
            for (row, line) in glyph(character).enumerated() {
                for (column, ink) in line.enumerated() where ink {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            canvas.blend(x: left + column * scale + dx, y: y + row * scale + dy, color: color)
                        }
                    }
                }
            }
            left += (glyphWidth + 1) * scale
        }
    }
}
