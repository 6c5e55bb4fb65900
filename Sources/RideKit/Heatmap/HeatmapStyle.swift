import Foundation

/// The colours of the heatmap: transparent where nothing was ridden, then from a translucent red (once) through
/// orange to a pale yellow (`saturationCount` times or more), on a logarithmic scale, so that a street ridden daily
/// and a lane ridden once are both visible. The same count gets the same colour in every tile.
public enum HeatmapStyle {
    /// The count drawn in the brightest colour.
    public static let saturationCount: Double = 50

    static let stops: [(t: Double, color: RGBAColor)] = [
        (0, RGBAColor(red: 200, green: 20, blue: 60, alpha: 170)),
        (0.5, RGBAColor(red: 255, green: 120, blue: 0, alpha: 230)),
        (1, RGBAColor(red: 255, green: 245, blue: 160, alpha: 255)),
    ]

    /// The colour of a pixel passed `count` times (clear for 0).
    public static func color(count: UInt32) -> RGBAColor {
        guard count > 0 else { return .clear }
        let t = min(1, log(Double(count)) / log(saturationCount))
        var lower = stops[0], upper = stops[stops.count - 1]
        for i in 1..<stops.count where t <= stops[i].t {
            lower = stops[i - 1]
            upper = stops[i]
            break
        }
        let f = upper.t > lower.t ? (t - lower.t) / (upper.t - lower.t) : 0
        func mix(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * f).rounded()) }
        return RGBAColor(
            red: mix(lower.color.red, upper.color.red), green: mix(lower.color.green, upper.color.green),
            blue: mix(lower.color.blue, upper.color.blue), alpha: mix(lower.color.alpha, upper.color.alpha))
    }

    /// The tile's picture.
    public static func render(_ counts: HeatmapCounts) -> RGBACanvas {
        var canvas = RGBACanvas(width: HeatmapCounts.side, height: HeatmapCounts.side)
        var palette: [UInt32: RGBAColor] = [:]
        for i in 0..<HeatmapCounts.pixelCount where counts.counts[i] != 0 {
            let count = counts.counts[i]
            let color = palette[count] ?? color(count: count)
            palette[count] = color
            canvas.pixels[i * 4] = color.red
            canvas.pixels[i * 4 + 1] = color.green
            canvas.pixels[i * 4 + 2] = color.blue
            canvas.pixels[i * 4 + 3] = color.alpha
        }
        return canvas
    }

    /// The tile as PNG.
    public static func png(_ counts: HeatmapCounts) -> Data { PNGEncoder.encode(render(counts)) }
}
