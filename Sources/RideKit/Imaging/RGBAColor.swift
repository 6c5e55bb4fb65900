/// A colour with straight (not premultiplied) alpha, 8 bits a channel.
public struct RGBAColor: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Fully transparent black: what an empty canvas holds.
    public static let clear = RGBAColor(red: 0, green: 0, blue: 0, alpha: 0)
}
