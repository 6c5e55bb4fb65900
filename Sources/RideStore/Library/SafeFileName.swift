import Foundation
import RideKit

/// File names for tracks written to disk: `2024-05-04 Morning ride.gpx`, from the track's date and name,
/// safe on every common file system whatever the name holds.
///
///     SafeFileName.make(date: "2024-05-04", name: "../../etc/passwd", extension: "gpx", taken: [])
///     // "2024-05-04 etc passwd.gpx" — no separator or leading dot survives, so the file stays in its folder
public enum SafeFileName {
    /// Longest stem kept, in UTF-8 bytes: far under the 255-byte limit of ext4, APFS and NTFS, with room for
    /// the date, a " (99)" and the extension.
    public static let maximumNameBytes = 100

    /// A name in the track's local date (the offset it was recorded in), else the date it was saved (UTC).
    public static func make(for track: TrackSummary, extension fileExtension: String, taken: Set<String>) -> String {
        let date = track.startTime.map { String($0.rfc3339.prefix(10)) } ?? utcDate(track.createdAt)
        return make(date: date, name: track.name, extension: fileExtension, taken: taken)
    }

    /// `date name.ext`, cleaned, unique among `taken` (compared in lower case, as on case-insensitive disks):
    /// a second one gets ` (2)`, and so on.
    public static func make(date: String, name: String, extension fileExtension: String, taken: Set<String>) -> String {
        let stem = "\(date) \(clean(name))".trimmingCharacters(in: .whitespaces)
        var candidate = "\(stem).\(fileExtension)"
        var number = 2
        while taken.contains(candidate.lowercased()) {
            candidate = "\(stem) (\(number)).\(fileExtension)"
            number += 1
        }
        return candidate
    }

    /// The name with every character that could change the folder, confuse a shell or a file system
    /// (separators, `:*?"<>|`, control and format characters) turned into a space, runs of spaces folded,
    /// leading dots and trailing dots and spaces removed, and at most `maximumNameBytes` bytes.
    public static func clean(_ name: String) -> String {
        var result = ""
        var lastWasSpace = true
        for scalar in name.unicodeScalars {
            let unsafe = "/\\:*?\"<>|".unicodeScalars.contains(scalar) || scalar.value < 0x20 || scalar.value == 0x7F
                || scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .lineSeparator
                || scalar.properties.generalCategory == .paragraphSeparator || scalar.properties.isWhitespace
            if unsafe {
                if !lastWasSpace { result.append(" ") }
                lastWasSpace = true
            } else {
                result.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
        }
        while result.hasPrefix(".") || result.hasPrefix(" ") { result.removeFirst() }
        var limited = ""
        for character in result {
            if limited.utf8.count + character.utf8.count > maximumNameBytes { break }
            limited.append(character)
        }
        while limited.hasSuffix(".") || limited.hasSuffix(" ") { limited.removeLast() }
        return limited.isEmpty ? "Track" : limited
    }

    static func utcDate(_ date: Date) -> String {
        String(GPXTime(date: date).rfc3339.prefix(10))
    }
}
