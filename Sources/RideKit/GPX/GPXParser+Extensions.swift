import Foundation

extension GPXParser {
    // MARK: Extensions

    /// `<extensions>` of anything but a point: kept as trees.
    mutating func parseExtensions(into extensions: inout [XMLElementNode]) throws(GPXError) {
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument: return
            case .startElement:
                if keepsExtensions {
                    extensions.append(contentsOf: unwrapped(try readTree()))
                } else {
                    try skipElement()
                }
            }
        }
    }

    /// The writer wraps extension elements in no namespace or in GPX's own (which the schema's `##other` refuses)
    /// in `bikeride:extension`; reading unwraps them, so the document is as it was.
    func unwrapped(_ node: XMLElementNode) -> [XMLElementNode] {
        guard node.namespace == NamespaceKind.bikerideNamespace, node.localName == "extension" else { return [node] }
        return node.children.compactMap { child in
            if case .element(let element) = child { return element }
            return nil
        }
    }

    /// `bikeride:number` in a track's or route's extensions: a number the schema's nonNegativeInteger cannot hold.
    func takeNumber(from extensions: inout [XMLElementNode]) -> Int? {
        guard let index = extensions.firstIndex(where: { $0.namespace == NamespaceKind.bikerideNamespace && $0.localName == "number" }),
            let number = Int(extensions[index].text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        extensions.remove(at: index)
        return number
    }

    /// A point's `<extensions>`: Garmin TrackPointExtension (v1 and v2, under any prefix), PowerExtension and the
    /// bare `speed`/`course`/`power` that some apps write become typed fields; the rest is kept as trees.
    mutating func parsePointExtensions(into point: inout TrackPoint) throws(GPXError) {
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument: return
            case .startElement:
                let namespaceKind = kind(scanner.elementNamespace)
                let name = GPXName.lookup(scanner.elementLocalName)
                switch (namespaceKind, name) {
                case (.trackPointExtension, .trackPointExtension), (.trackPointExtension, .powerExtension),
                    (.power, .powerExtension):
                    try parseTypedContainer(into: &point)
                case (.bikeride, _):
                    try readBikerideValue(into: &point)
                case (.trackPointExtension, _), (.power, .powerInWatts), (.gpx, .speed), (.gpx, .course), (.gpx, .power):
                    var kept: [XMLElementNode] = []
                    try readTypedValue(name, kind: namespaceKind, into: &point, keepingTo: &kept)
                    if !kept.isEmpty { point.extensions.append(contentsOf: kept) }
                default:
                    try keepForeign(in: &point.extensions)
                }
            }
        }
    }

    /// A TrackPointExtension or PowerExtension element: typed children are taken, others kept inside a copy of it.
    mutating func parseTypedContainer(into point: inout TrackPoint) throws(GPXError) {
        var container = keepsExtensions ? currentElementNode() : nil
        while true {
            if scanner.peekSimpleElement(), case let namespaceKind = kind(scanner.elementNamespace),
                namespaceKind == .trackPointExtension || namespaceKind == .power
            {
                let name = GPXName.lookup(scanner.elementLocalName)
                if name.isTypedExtensionValue && (namespaceKind == .trackPointExtension || name == .powerInWatts) {
                    peeked = true
                    var kept: [XMLElementNode] = []
                    try readTypedValue(name, kind: namespaceKind, into: &point, keepingTo: &kept)
                    container?.children.append(contentsOf: kept.map { .element($0) })
                    continue
                }
            }
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument:
                if let container, !container.children.isEmpty || !container.attributes.isEmpty {
                    point.extensions.append(container)
                }
                return
            case .startElement:
                let namespaceKind = kind(scanner.elementNamespace)
                let name = GPXName.lookup(scanner.elementLocalName)
                let isTyped: Bool
                switch (namespaceKind, name) {
                case (.trackPointExtension, .hr), (.trackPointExtension, .cad), (.trackPointExtension, .atemp),
                    (.trackPointExtension, .wtemp), (.trackPointExtension, .depth), (.trackPointExtension, .speed),
                    (.trackPointExtension, .course), (.trackPointExtension, .powerInWatts), (.power, .powerInWatts):
                    isTyped = true
                default:
                    isTyped = false
                }
                if isTyped {
                    var kept: [XMLElementNode] = []
                    try readTypedValue(name, kind: namespaceKind, into: &point, keepingTo: &kept)
                    container?.children.append(contentsOf: kept.map { .element($0) })
                } else if keepsExtensions {
                    container?.children.append(.element(try readTree()))
                } else {
                    try skipElement()
                }
            }
        }
    }

    /// bikeride's own point extensions: GPX values the 1.1 schema cannot hold, written there by `GPXWriter`.
    mutating func readBikerideValue(into point: inout TrackPoint) throws(GPXError) {
        let local = scanner.elementLocalName
        func named(_ name: StaticString) -> Bool {
            local.count == name.utf8CodeUnitCount && memcmp(local.baseAddress!, name.utf8Start, local.count) == 0
        }
        if named("fix") {
            point.fix = try readString(of: "fix")
        } else if named("magvar") {
            point.magneticVariation = try readNumber(of: "magvar")
        } else if named("sat") {
            point.satellites = try readInteger(of: "sat")
        } else if named("dgpsid") {
            point.dgpsStationID = try readInteger(of: "dgpsid")
        } else if keepsExtensions {
            point.extensions.append(contentsOf: unwrapped(try readTree()))
        } else {
            try skipElement()
        }
    }

    /// Reads a typed extension value into its field. A value whose field is already set (a second `hr`, say),
    /// or an element bikeride does not type, is kept as a tree in `kept` instead, so nothing is lost.
    mutating func readTypedValue(
        _ name: GPXName, kind: NamespaceKind, into point: inout TrackPoint, keepingTo kept: inout [XMLElementNode]
    ) throws(GPXError) {
        // A switch, not key paths: this runs for every hr and cad of every point.
        let isFree: Bool
        switch name {
        case .hr: isFree = point.heartRate == nil
        case .cad: isFree = point.cadence == nil
        case .atemp: isFree = point.temperatureCelsius == nil
        case .wtemp: isFree = point.waterTemperatureCelsius == nil
        case .depth: isFree = point.depthMeters == nil
        case .speed: isFree = point.speedMetersPerSecond == nil
        case .course: isFree = point.courseDegrees == nil
        case .powerInWatts, .power: isFree = point.powerWatts == nil
        default: isFree = false
        }
        guard isFree else {
            if keepsExtensions {
                kept.append(contentsOf: unwrapped(try readTree()))
            } else {
                try skipElement()
            }
            return
        }
        switch name {
        case .hr: point.heartRate = try readNumber(of: "hr")
        case .cad: point.cadence = try readNumber(of: "cad")
        case .atemp: point.temperatureCelsius = try readNumber(of: "atemp")
        case .wtemp: point.waterTemperatureCelsius = try readNumber(of: "wtemp")
        case .depth: point.depthMeters = try readNumber(of: "depth")
        case .speed: point.speedMetersPerSecond = try readSpeed(of: "speed")
        case .course: point.courseDegrees = try readNumber(of: "course")
        default: point.powerWatts = try readNumber(of: name.spelling)
        }
    }
}
