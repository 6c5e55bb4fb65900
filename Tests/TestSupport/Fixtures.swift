import Foundation

/// The shared fixtures (`../shared/fixtures` beside the package), read in place, never copied.
public enum Fixtures {
    public static let root: URL = {
        let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return packageRoot.deletingLastPathComponent().appending(path: "shared/fixtures")
    }()

    public static func url(_ relativePath: String) -> URL { root.appending(path: relativePath) }

    /// Every well-formed fixture GPX (the `malformed` folder and gzip files excluded), as paths under `gpx/`.
    public static let wellFormedGPX: [String] = files(under: "gpx").filter { !$0.hasPrefix("gpx/malformed/") && $0.hasSuffix(".gpx") }

    /// The files under `gpx/malformed`.
    public static let malformedGPX: [String] = files(under: "gpx/malformed")

    public static func files(under folder: String) -> [String] {
        let base = root.appending(path: folder)
        guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var result: [String] = []
        for case let url as URL in enumerator where !url.hasDirectoryPath {
            let path = url.path
            guard let range = path.range(of: "/fixtures/") else { continue }
            result.append(String(path[range.upperBound...]))
        }
        return result.sorted()
    }

    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: url(relativePath)))
    }
}
