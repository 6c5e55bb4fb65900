import Foundation

extension Place {
    /// The place as a GPX waypoint: name, the address as `cmt`, every note's text in `desc` (a blank line
    /// between notes), the labels' names in `type` (comma-separated), and the creation time.
    public func waypoint(notes: [PlaceNote]) -> Waypoint {
        let description = notes.map(\.body).filter { !$0.isEmpty }.joined(separator: "\n\n")
        return Waypoint(
            latitude: latitude, longitude: longitude, time: GPXTime(date: createdAt), name: name, comment: address,
            description: description.isEmpty ? nil : description,
            type: labels.isEmpty ? nil : labels.map(\.name).joined(separator: ", "))
    }
}

extension Waypoint {
    /// What a place made from this waypoint holds: its name (or the `sym`, or the position as text), the
    /// `cmt` as address, `desc` as its one note, and the time as its creation time.
    public var placeFields: (name: String, address: String?, note: String?, createdAt: Date?) {
        let fallback = "(\(longitude), \(latitude))"
        let title = [name, symbol].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }.first { !$0.isEmpty }
        return (title ?? fallback, comment, description, time?.date)
    }
}
