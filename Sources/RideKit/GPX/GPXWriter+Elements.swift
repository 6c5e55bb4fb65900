import Foundation

extension GPXWriter {
    // MARK: Elements

    mutating func textElement(_ name: StaticString, _ value: String?, depth: Int) {
        guard let value else { return }
        newline(depth)
        buffer.append(UInt8(ascii: "<"))
        raw(name)
        buffer.append(UInt8(ascii: ">"))
        XMLEscaping.appendText(value, to: &buffer)
        raw("</")
        raw(name)
        buffer.append(UInt8(ascii: ">"))
    }

    mutating func decimalElement(_ name: StaticString, _ value: Double?, depth: Int) {
        guard let value, value.isFinite else { return }
        newline(depth)
        buffer.append(UInt8(ascii: "<"))
        raw(name)
        buffer.append(UInt8(ascii: ">"))
        DecimalFormatting.append(value, to: &buffer)
        raw("</")
        raw(name)
        buffer.append(UInt8(ascii: ">"))
    }

    mutating func integerElement(_ name: StaticString, _ value: Int?, depth: Int) {
        guard let value else { return }
        newline(depth)
        buffer.append(UInt8(ascii: "<"))
        raw(name)
        buffer.append(UInt8(ascii: ">"))
        DecimalFormatting.appendInteger(Int64(value), to: &buffer)
        raw("</")
        raw(name)
        buffer.append(UInt8(ascii: ">"))
    }

    mutating func timeElement(_ time: GPXTime?, depth: Int) {
        guard let time else { return }
        newline(depth)
        raw("<time>")
        appendTime(time)
        raw("</time>")
    }

    mutating func appendTime(_ time: GPXTime) {
        // xsd:dateTime allows offsets up to ±14:00 only.
        if case .minutes(let minutes) = time.offset, abs(minutes) > 14 * 60 {
            time.inUTC.appendRFC3339(to: &buffer)
        } else {
            time.appendRFC3339(to: &buffer)
        }
    }

    mutating func writeLink(_ link: GPXLink, depth: Int) {
        newline(depth)
        raw("<link href=\"")
        XMLEscaping.appendAttribute(link.href, to: &buffer)
        if link.text == nil && link.type == nil {
            raw("\"/>")
            return
        }
        raw("\">")
        textElement("text", link.text, depth: depth + 1)
        textElement("type", link.type, depth: depth + 1)
        newline(depth)
        raw("</link>")
    }

    mutating func writeMetadata(_ metadata: GPXMetadata) {
        let bounds = metadata.bounds.flatMap(Self.writableBounds)
        guard
            metadata.name != nil || metadata.description != nil || metadata.author != nil
                || metadata.copyright != nil || !metadata.links.isEmpty || metadata.time != nil
                || metadata.keywords != nil || bounds != nil || !metadata.extensions.isEmpty
        else { return }
        newline(1)
        raw("<metadata>")
        textElement("name", metadata.name, depth: 2)
        textElement("desc", metadata.description, depth: 2)
        if let author = metadata.author {
            writePerson(author, depth: 2)
        }
        if let copyright = metadata.copyright {
            newline(2)
            raw("<copyright author=\"")
            XMLEscaping.appendAttribute(copyright.author, to: &buffer)
            if copyright.year == nil && copyright.license == nil {
                raw("\"/>")
            } else {
                raw("\">")
                if let year = copyright.year {
                    newline(3)
                    raw("<year>")
                    // xsd:gYear: at least four digits, with a sign before years BC.
                    if year < 0 { buffer.append(UInt8(ascii: "-")) }
                    let digits = String(year.magnitude)
                    buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 4 - digits.utf8.count)))
                    raw(digits)
                    raw("</year>")
                }
                textElement("license", copyright.license, depth: 3)
                newline(2)
                raw("</copyright>")
            }
        }
        for link in metadata.links { writeLink(link, depth: 2) }
        timeElement(metadata.time, depth: 2)
        textElement("keywords", metadata.keywords, depth: 2)
        if let bounds {
            newline(2)
            raw("<bounds minlat=\"")
            DecimalFormatting.append(bounds.minLatitude, to: &buffer)
            raw("\" minlon=\"")
            DecimalFormatting.append(bounds.minLongitude, to: &buffer)
            raw("\" maxlat=\"")
            DecimalFormatting.append(bounds.maxLatitude, to: &buffer)
            raw("\" maxlon=\"")
            DecimalFormatting.append(bounds.maxLongitude, to: &buffer)
            raw("\"/>")
        }
        writeExtensions(metadata.extensions, depth: 2)
        newline(1)
        raw("</metadata>")
    }

    mutating func writePerson(_ person: GPXPerson, depth: Int) {
        newline(depth)
        if person.name == nil && person.email == nil && person.link == nil {
            raw("<author/>")
            return
        }
        raw("<author>")
        textElement("name", person.name, depth: depth + 1)
        if let email = person.email {
            // emailType splits the address at its last `@` (a domain has none); an address without one is
            // written whole as the id with an empty domain.
            let parts = Self.splitEmail(email)
            newline(depth + 1)
            raw("<email id=\"")
            XMLEscaping.appendAttribute(parts.id, to: &buffer)
            raw("\" domain=\"")
            XMLEscaping.appendAttribute(parts.domain, to: &buffer)
            raw("\"/>")
        }
        if let link = person.link { writeLink(link, depth: depth + 1) }
        newline(depth)
        raw("</author>")
    }

    static func splitEmail(_ email: String) -> (id: String, domain: String) {
        guard let at = email.lastIndex(of: "@") else { return (email, "") }
        return (String(email[..<at]), String(email[email.index(after: at)...]))
    }

    /// Bounds the schema accepts, or nil: latitudes within ±90, longitudes within −180…180 (180 moved just
    /// below, as the schema excludes it), all finite.
    static func writableBounds(_ bounds: GPXBounds) -> GPXBounds? {
        guard let minLongitude = writableLongitude(bounds.minLongitude),
            let maxLongitude = writableLongitude(bounds.maxLongitude),
            isWritableLatitude(bounds.minLatitude), isWritableLatitude(bounds.maxLatitude)
        else { return nil }
        return GPXBounds(
            minLatitude: bounds.minLatitude, minLongitude: minLongitude, maxLatitude: bounds.maxLatitude,
            maxLongitude: maxLongitude)
    }

    static func isWritableLatitude(_ latitude: Double) -> Bool {
        latitude.isFinite && (-90...90).contains(latitude)
    }

    /// `longitudeType` is −180 ≤ x < 180; 180 itself becomes the largest double below it.
    static func writableLongitude(_ longitude: Double) -> Double? {
        guard longitude.isFinite, (-180...180).contains(longitude) else { return nil }
        return longitude == 180 ? (180.0).nextDown : longitude
    }

    /// name, cmt, desc, src, link*, number, type and extensions: the head of `rte` and `trk`.
    mutating func writeDescriptiveFields(
        name: String?, comment: String?, description: String?, source: String?, links: [GPXLink], number: Int?,
        type: String?, extensions: [XMLElementNode], depth: Int
    ) {
        textElement("name", name, depth: depth)
        textElement("cmt", comment, depth: depth)
        textElement("desc", description, depth: depth)
        textElement("src", source, depth: depth)
        for link in links { writeLink(link, depth: depth) }
        var negativeNumber: Int? = nil
        if let number {
            if number >= 0 { integerElement("number", number, depth: depth) } else { negativeNumber = number }
        }
        textElement("type", type, depth: depth)
        guard negativeNumber != nil || !extensions.isEmpty else { return }
        newline(depth)
        raw("<extensions>")
        if let negativeNumber {
            newline(depth + 1)
            writeBikerideValue("number", String(negativeNumber))
        }
        for element in extensions {
            newline(depth + 1)
            writeExtensionTree(element)
        }
        newline(depth)
        raw("</extensions>")
    }

    /// A `wptType` element: `wpt`, `rtept` or `trkpt`.
    mutating func writePoint(_ point: TrackPoint, element: StaticString, depth: Int) {
        guard Self.isWritableLatitude(point.latitude), let longitude = Self.writableLongitude(point.longitude) else {
            return
        }
        newline(depth)
        buffer.append(UInt8(ascii: "<"))
        raw(element)
        raw(" lat=\"")
        DecimalFormatting.append(point.latitude, to: &buffer)
        raw("\" lon=\"")
        DecimalFormatting.append(longitude, to: &buffer)
        buffer.append(UInt8(ascii: "\""))

        let inner = depth + 1
        let bodyStart = buffer.count
        buffer.append(UInt8(ascii: ">"))
        decimalElement("ele", point.elevation, depth: inner)
        timeElement(point.time, depth: inner)
        var outOfRangeMagvar: Double? = nil
        if let magvar = point.magneticVariation, magvar.isFinite {
            if magvar >= 0 && magvar < 360 { decimalElement("magvar", magvar, depth: inner) } else { outOfRangeMagvar = magvar }
        }
        decimalElement("geoidheight", point.geoidHeight, depth: inner)
        textElement("name", point.name, depth: inner)
        textElement("cmt", point.comment, depth: inner)
        textElement("desc", point.description, depth: inner)
        textElement("src", point.source, depth: inner)
        for link in point.links { writeLink(link, depth: inner) }
        textElement("sym", point.symbol, depth: inner)
        textElement("type", point.type, depth: inner)
        var unlistedFix: String? = nil
        if let fix = point.fix {
            if Self.schemaFixValues.contains(fix) { textElement("fix", fix, depth: inner) } else { unlistedFix = fix }
        }
        var negativeSatellites: Int? = nil
        if let satellites = point.satellites {
            if satellites >= 0 { integerElement("sat", satellites, depth: inner) } else { negativeSatellites = satellites }
        }
        decimalElement("hdop", point.horizontalDilution, depth: inner)
        decimalElement("vdop", point.verticalDilution, depth: inner)
        decimalElement("pdop", point.positionDilution, depth: inner)
        decimalElement("ageofdgpsdata", point.ageOfDGPSDataSeconds, depth: inner)
        var unlistedStation: Int? = nil
        if let station = point.dgpsStationID {
            if (0...1023).contains(station) { integerElement("dgpsid", station, depth: inner) } else { unlistedStation = station }
        }

        let hasTrackPointExtension = [
            point.temperatureCelsius, point.waterTemperatureCelsius, point.depthMeters, point.heartRate,
            point.cadence, point.speedMetersPerSecond, point.courseDegrees,
        ].contains { $0?.isFinite == true }
        let hasPower = point.powerWatts?.isFinite == true
        if hasTrackPointExtension || hasPower || outOfRangeMagvar != nil || unlistedFix != nil
            || negativeSatellites != nil || unlistedStation != nil || !point.extensions.isEmpty
        {
            newline(inner)
            raw("<extensions>")
            if hasTrackPointExtension {
                newline(inner + 1)
                writeTrackPointExtension(point)
            }
            if let power = point.powerWatts, power.isFinite {
                newline(inner + 1)
                writeValue(
                    namespace: Self.powerExtensionNamespace, prefix: powerPrefix, hint: "pwr", localName: "PowerInWatts",
                    DecimalFormatting.string(power) ?? "")
            }
            if let unlistedFix {
                newline(inner + 1)
                writeBikerideValue("fix", unlistedFix)
            }
            if let outOfRangeMagvar {
                newline(inner + 1)
                writeBikerideValue("magvar", DecimalFormatting.string(outOfRangeMagvar) ?? "")
            }
            if let negativeSatellites {
                newline(inner + 1)
                writeBikerideValue("sat", String(negativeSatellites))
            }
            if let unlistedStation {
                newline(inner + 1)
                writeBikerideValue("dgpsid", String(unlistedStation))
            }
            for extensionElement in point.extensions {
                newline(inner + 1)
                writeExtensionTree(extensionElement)
            }
            newline(inner)
            raw("</extensions>")
        }

        if buffer.count == bodyStart + 1 {
            // Nothing inside: `<trkpt lat=".." lon=".."/>`.
            buffer.removeLast()
            raw("/>")
        } else {
            newline(depth)
            raw("</")
            raw(element)
            buffer.append(UInt8(ascii: ">"))
        }
    }

    static let schemaFixValues: Set<String> = ["none", "2d", "3d", "dgps", "pps"]

    /// `<gpxtpx:TrackPointExtension>` with the v2 schema's order: atemp, wtemp, depth, hr, cad, speed, course.
    mutating func writeTrackPointExtension(_ point: TrackPoint) {
        let fields: [(StaticString, Double?)] = [
            ("atemp", point.temperatureCelsius), ("wtemp", point.waterTemperatureCelsius), ("depth", point.depthMeters),
            ("hr", point.heartRate), ("cad", point.cadence), ("speed", point.speedMetersPerSecond),
            ("course", point.courseDegrees),
        ]
        if let prefix = trackPointExtensionPrefix {
            buffer.append(UInt8(ascii: "<"))
            buffer.append(contentsOf: prefix)
            raw(":TrackPointExtension>")
            for (name, value) in fields {
                guard let value, value.isFinite else { continue }
                buffer.append(UInt8(ascii: "<"))
                buffer.append(contentsOf: prefix)
                buffer.append(UInt8(ascii: ":"))
                raw(name)
                buffer.append(UInt8(ascii: ">"))
                DecimalFormatting.append(value, to: &buffer)
                raw("</")
                buffer.append(contentsOf: prefix)
                buffer.append(UInt8(ascii: ":"))
                raw(name)
                buffer.append(UInt8(ascii: ">"))
            }
            raw("</")
            buffer.append(contentsOf: prefix)
            raw(":TrackPointExtension>")
        } else {
            // The namespace is not declared on the root: build the tree and let the general path declare it.
            var children: [XMLNode] = []
            for (name, value) in fields {
                guard let value, value.isFinite, let text = DecimalFormatting.string(value) else { continue }
                children.append(
                    .element(
                        XMLElementNode(
                            namespace: Self.trackPointExtensionNamespace, localName: name.description, prefix: "gpxtpx",
                            children: [.text(text)])))
            }
            writeExtensionTree(
                XMLElementNode(
                    namespace: Self.trackPointExtensionNamespace, localName: "TrackPointExtension", prefix: "gpxtpx",
                    children: children))
        }
    }

    mutating func writeBikerideValue(_ localName: StaticString, _ text: String) {
        writeValue(namespace: Self.bikerideNamespace, prefix: bikeridePrefix, hint: "bikeride", localName: localName, text)
    }

    /// `<prefix:name>text</prefix:name>` in one of the writer's own namespaces; through the general path,
    /// which declares the namespace, when the root did not.
    mutating func writeValue(
        namespace: String, prefix: [UInt8]?, hint: String, localName: StaticString, _ text: String
    ) {
        guard let prefix else {
            writeElementTree(
                XMLElementNode(
                    namespace: namespace, localName: localName.description, prefix: hint, children: [.text(text)]))
            return
        }
        buffer.append(UInt8(ascii: "<"))
        buffer.append(contentsOf: prefix)
        buffer.append(UInt8(ascii: ":"))
        raw(localName)
        buffer.append(UInt8(ascii: ">"))
        XMLEscaping.appendText(text, to: &buffer)
        raw("</")
        buffer.append(contentsOf: prefix)
        buffer.append(UInt8(ascii: ":"))
        raw(localName)
        buffer.append(UInt8(ascii: ">"))
    }

    mutating func writeExtensions(_ extensions: [XMLElementNode], depth: Int) {
        guard !extensions.isEmpty else { return }
        newline(depth)
        raw("<extensions>")
        for element in extensions {
            newline(depth + 1)
            writeExtensionTree(element)
        }
        newline(depth)
        raw("</extensions>")
    }
}
