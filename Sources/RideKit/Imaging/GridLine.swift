/// The cells of a unit grid that a segment passes through (its supercover, by Amanatides and Woo's traversal), and
/// the clipping of a segment to a rectangle (Liang–Barsky).
///
///     GridLine.forEachCell(from: (0.5, 0.5), to: (2.5, 1.5)) { x, y in print(x, y) }
///     // (0, 0) (1, 0) (1, 1) (2, 1): every cell the segment enters, in order
///
/// Cell (i, j) covers i…i+1 × j…j+1. O(cells visited): one step per cell boundary crossed. Where the segment passes
/// exactly through a corner it enters one of the two side cells, so the path stays 4-connected.
public enum GridLine {
    /// Calls `body` with each cell from the one holding `start` to the one holding `end`.
    public static func forEachCell(from start: (x: Double, y: Double), to end: (x: Double, y: Double), _ body: (Int, Int) -> Void) {
        guard start.x.isFinite, start.y.isFinite, end.x.isFinite, end.y.isFinite else { return }
        var x = Int(start.x.rounded(.down)), y = Int(start.y.rounded(.down))
        let endX = Int(end.x.rounded(.down)), endY = Int(end.y.rounded(.down))
        body(x, y)
        var remainingX = abs(endX - x), remainingY = abs(endY - y)
        guard remainingX + remainingY > 0 else { return }
        let dx = end.x - start.x, dy = end.y - start.y
        let stepX = endX > x ? 1 : -1, stepY = endY > y ? 1 : -1
        // Parameter t (0…1 along the segment) at which the next vertical / horizontal boundary is crossed.
        var nextX = dx == 0 ? Double.infinity : ((stepX > 0 ? Double(x + 1) : Double(x)) - start.x) / dx
        var nextY = dy == 0 ? Double.infinity : ((stepY > 0 ? Double(y + 1) : Double(y)) - start.y) / dy
        let deltaX = dx == 0 ? Double.infinity : abs(1 / dx), deltaY = dy == 0 ? Double.infinity : abs(1 / dy)
        // The counts of steps per axis are known from the end cell: rounding can change the order, never the cells' count.
        while remainingX + remainingY > 0 {
            if remainingY == 0 || (remainingX > 0 && nextX < nextY) {
                x += stepX
                nextX += deltaX
                remainingX -= 1
            } else {
                y += stepY
                nextY += deltaY
                remainingY -= 1
            }
            body(x, y)
        }
    }

    /// The part of the segment inside the rectangle (edges included), or nil when none of it is.
    public static func clip(
        from start: (x: Double, y: Double), to end: (x: Double, y: Double), minX: Double, minY: Double, maxX: Double, maxY: Double
    ) -> (start: (x: Double, y: Double), end: (x: Double, y: Double))? {
        let dx = end.x - start.x, dy = end.y - start.y
        var t0 = 0.0, t1 = 1.0
        for (p, q) in [(-dx, start.x - minX), (dx, maxX - start.x), (-dy, start.y - minY), (dy, maxY - start.y)] {
            if p == 0 {
                if q < 0 { return nil }
            } else {
                let r = q / p
                if p < 0 {
                    if r > t1 { return nil }
                    if r > t0 { t0 = r }
                } else {
                    if r < t0 { return nil }
                    if r < t1 { t1 = r }
                }
            }
        }
        let a = (x: start.x + t0 * dx, y: start.y + t0 * dy)
        let b = (x: start.x + t1 * dx, y: start.y + t1 * dy)
        // Keep the ends inside (a point on the far edge belongs to the next cell; pull it back by a hair).
        func inside(_ p: (x: Double, y: Double)) -> (x: Double, y: Double) {
            (min(max(p.x, minX), maxX.nextDown), min(max(p.y, minY), maxY.nextDown))
        }
        return (inside(a), inside(b))
    }
}
