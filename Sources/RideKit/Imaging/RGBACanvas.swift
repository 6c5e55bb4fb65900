import Foundation

/// A raster of 8-bit RGBA pixels, row by row from the top left, that lines can be drawn on: plain (every pixel
/// the line crosses, `GridLine`) or anti-aliased (Xiaolin Wu's algorithm), optionally wider.
///
///     var canvas = RGBACanvas(width: 1200, height: 630)
///     canvas.fill(RGBAColor(red: 255, green: 255, blue: 255))
///     canvas.drawLine(from: (10, 10), to: (1190, 620), color: RGBAColor(red: 220, green: 0, blue: 0), antialiased: true)
///     let png = PNGEncoder.encode(canvas)
///
/// Drawing is source-over compositing; a line costs time linear in its length in pixels (clipped to the canvas).
public struct RGBACanvas: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// `width × height × 4` bytes: red, green, blue, alpha.
    public var pixels: [UInt8]

    /// A fully transparent canvas. Sizes are at least 1 and at most 16,384 (a preview or a tile, never more).
    public init(width: Int, height: Int) {
        precondition((1...16_384).contains(width) && (1...16_384).contains(height), "canvas size out of range")
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 4)
    }

    public subscript(x: Int, y: Int) -> RGBAColor {
        get {
            let i = (y * width + x) * 4
            return RGBAColor(red: pixels[i], green: pixels[i + 1], blue: pixels[i + 2], alpha: pixels[i + 3])
        }
        set {
            let i = (y * width + x) * 4
            pixels[i] = newValue.red
            pixels[i + 1] = newValue.green
            pixels[i + 2] = newValue.blue
            pixels[i + 3] = newValue.alpha
        }
    }

    /// Every pixel set to `color`.
    public mutating func fill(_ color: RGBAColor) {
        for i in stride(from: 0, to: pixels.count, by: 4) {
            pixels[i] = color.red
            pixels[i + 1] = color.green
            pixels[i + 2] = color.blue
            pixels[i + 3] = color.alpha
        }
    }

    /// Composites `color`, its alpha scaled by `coverage` (0…1), over the pixel; pixels outside are ignored.
    public mutating func blend(x: Int, y: Int, color: RGBAColor, coverage: Double = 1) {
        guard x >= 0, y >= 0, x < width, y < height, coverage > 0 else { return }
        let i = (y * width + x) * 4
        let sourceAlpha = Double(color.alpha) / 255 * min(1, coverage)
        let targetAlpha = Double(pixels[i + 3]) / 255
        let outAlpha = sourceAlpha + targetAlpha * (1 - sourceAlpha)
        guard outAlpha > 0 else { return }
        func mix(_ source: UInt8, _ target: UInt8) -> UInt8 {
            let value = (Double(source) * sourceAlpha + Double(target) * targetAlpha * (1 - sourceAlpha)) / outAlpha
            return UInt8(max(0, min(255, value.rounded())))
        }
        pixels[i] = mix(color.red, pixels[i])
        pixels[i + 1] = mix(color.green, pixels[i + 1])
        pixels[i + 2] = mix(color.blue, pixels[i + 2])
        pixels[i + 3] = UInt8(max(0, min(255, (outAlpha * 255).rounded())))
    }

    /// Draws a line between two points in pixel units (pixel (0, 0) covers 0…1 × 0…1). Plain lines colour every
    /// pixel the segment passes through; anti-aliased ones spread each step over the two nearest pixels.
    /// `width` above 1 repeats the line offset across its normal.
    public mutating func drawLine(
        from start: (x: Double, y: Double), to end: (x: Double, y: Double), color: RGBAColor, width lineWidth: Double = 1,
        antialiased: Bool = false
    ) {
        guard start.x.isFinite, start.y.isFinite, end.x.isFinite, end.y.isFinite else { return }
        let offsets = Self.offsets(from: start, to: end, width: lineWidth)
        for offset in offsets {
            let a = (start.x + offset.x, start.y + offset.y), b = (end.x + offset.x, end.y + offset.y)
            guard let clipped = GridLine.clip(from: a, to: b, minX: 0, minY: 0, maxX: Double(width), maxY: Double(height)) else { continue }
            if antialiased {
                drawWu(from: clipped.start, to: clipped.end, color: color)
            } else {
                GridLine.forEachCell(from: clipped.start, to: clipped.end) { x, y in blend(x: x, y: y, color: color) }
            }
        }
    }

    /// Draws a polyline (pixel units) with the same options as `drawLine`.
    public mutating func drawPolyline(_ points: [(x: Double, y: Double)], color: RGBAColor, width: Double = 1, antialiased: Bool = false) {
        guard points.count > 1 else {
            if let only = points.first { drawLine(from: only, to: only, color: color, width: width, antialiased: antialiased) }
            return
        }
        for i in 1..<points.count { drawLine(from: points[i - 1], to: points[i], color: color, width: width, antialiased: antialiased) }
    }

    /// Offsets across the line's normal, one pixel apart, for a line `width` wide.
    static func offsets(from a: (x: Double, y: Double), to b: (x: Double, y: Double), width: Double) -> [(x: Double, y: Double)] {
        let count = max(1, min(64, Int(width.rounded())))
        guard count > 1 else { return [(0, 0)] }
        let dx = b.x - a.x, dy = b.y - a.y
        let length = (dx * dx + dy * dy).squareRoot()
        let normal = length > 0 ? (x: -dy / length, y: dx / length) : (x: 0.0, y: 1.0)
        return (0..<count).map { i in
            let t = Double(i) - Double(count - 1) / 2
            return (normal.x * t, normal.y * t)
        }
    }

    /// Xiaolin Wu's line: along the major axis, one step per pixel, the coverage split between the two pixels
    /// either side of the exact line.
    mutating func drawWu(from a: (x: Double, y: Double), to b: (x: Double, y: Double), color: RGBAColor) {
        // Pixel centres are at +0.5.
        var x0 = a.x - 0.5, y0 = a.y - 0.5, x1 = b.x - 0.5, y1 = b.y - 0.5
        let steep = abs(y1 - y0) > abs(x1 - x0)
        if steep { swap(&x0, &y0); swap(&x1, &y1) }
        if x0 > x1 { swap(&x0, &x1); swap(&y0, &y1) }
        let dx = x1 - x0
        let gradient = dx == 0 ? 0 : (y1 - y0) / dx
        let first = Int(x0.rounded()), last = Int(x1.rounded())
        guard last >= first else { return }
        for x in first...last {
            let y = y0 + gradient * (Double(x) - x0)
            let base = y.rounded(.down)
            let fraction = y - base
            let yi = Int(base)
            if steep {
                blend(x: yi, y: x, color: color, coverage: 1 - fraction)
                blend(x: yi + 1, y: x, color: color, coverage: fraction)
            } else {
                blend(x: x, y: yi, color: color, coverage: 1 - fraction)
                blend(x: x, y: yi + 1, color: color, coverage: fraction)
            }
        }
    }
}
