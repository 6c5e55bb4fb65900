import Foundation

extension GPXWriter {
    // MARK: Extension trees

    /// Writes a direct child of `<extensions>`. One in no namespace or in the GPX namespace goes into a
    /// `bikeride:extension` wrapper, because the schema's `##other` wildcard admits neither.
    mutating func writeExtensionTree(_ element: XMLElementNode) {
        if element.namespace.isEmpty || element.namespace == Self.gpxNamespace {
            writeElementTree(
                XMLElementNode(
                    namespace: Self.bikerideNamespace, localName: "extension", prefix: "bikeride",
                    children: [.element(element)]))
        } else {
            writeElementTree(element)
        }
    }

    enum TreeStep {
        case open(XMLElementNode)
        case text(String)
        case close(name: [UInt8])
    }

    /// Writes an element and its descendants exactly as kept (no added white space), declaring namespaces
    /// that are not in scope. Iterative, so a deep tree cannot exhaust a small thread stack.
    mutating func writeElementTree(_ root: XMLElementNode) {
        var steps: [TreeStep] = [.open(root)]
        while let step = steps.popLast() {
            switch step {
            case .text(let text):
                XMLEscaping.appendText(text, to: &buffer)
            case .close(let name):
                raw("</")
                buffer.append(contentsOf: name)
                buffer.append(UInt8(ascii: ">"))
                scope.pop()
            case .open(let node):
                guard XMLEscaping.isValidName(node.localName), node.namespace != XMLNamespaceScope.xmlNamespace,
                    node.namespace != XMLNamespaceScope.xmlnsNamespace
                else { continue }
                scope.push()
                var declarations: [(prefix: String, uri: String)] = []  // "" prefix: xmlns=""
                var name: [UInt8] = []
                if node.namespace.isEmpty {
                    if !scope.defaultNamespace.isEmpty {
                        scope.clearDefaultNamespace()
                        declarations.append(("", ""))
                    }
                } else if node.namespace == scope.defaultNamespace {
                    // Only the GPX namespace can be the default here; unprefixed is right.
                } else if let prefix = scope.prefix(for: node.namespace) {
                    name += prefix.utf8
                    name.append(UInt8(ascii: ":"))
                } else {
                    let prefix = scope.bind(node.namespace, hint: node.prefix)
                    declarations.append((prefix, node.namespace))
                    name += prefix.utf8
                    name.append(UInt8(ascii: ":"))
                }
                name += node.localName.utf8

                var attributes: [(name: String, value: String)] = []
                for attribute in node.attributes {
                    guard XMLEscaping.isValidName(attribute.localName),
                        attribute.namespace != XMLNamespaceScope.xmlnsNamespace,
                        !(attribute.namespace.isEmpty && attribute.localName == "xmlns")
                    else { continue }
                    if attribute.namespace.isEmpty {
                        attributes.append((attribute.localName, attribute.value))
                    } else if let prefix = scope.prefix(for: attribute.namespace) {
                        attributes.append((prefix + ":" + attribute.localName, attribute.value))
                    } else {
                        let prefix = scope.bind(attribute.namespace, hint: attribute.prefix)
                        declarations.append((prefix, attribute.namespace))
                        attributes.append((prefix + ":" + attribute.localName, attribute.value))
                    }
                }

                buffer.append(UInt8(ascii: "<"))
                buffer.append(contentsOf: name)
                for declaration in declarations {
                    raw(declaration.prefix.isEmpty ? " xmlns" : " xmlns:")
                    raw(declaration.prefix)
                    raw("=\"")
                    XMLEscaping.appendAttribute(declaration.uri, to: &buffer)
                    buffer.append(UInt8(ascii: "\""))
                }
                for attribute in attributes {
                    buffer.append(UInt8(ascii: " "))
                    raw(attribute.name)
                    raw("=\"")
                    XMLEscaping.appendAttribute(attribute.value, to: &buffer)
                    buffer.append(UInt8(ascii: "\""))
                }
                if node.children.isEmpty {
                    raw("/>")
                    scope.pop()
                    continue
                }
                buffer.append(UInt8(ascii: ">"))
                steps.append(.close(name: name))
                for child in node.children.reversed() {
                    switch child {
                    case .element(let element): steps.append(.open(element))
                    case .text(let text): steps.append(.text(text))
                    }
                }
            }
        }
    }
}

/// What a document needs declared on the root, found in one pass over it.
struct NamespaceUsage {
    var trackPointExtension = false
    var power = false
    var bikeride = false
    /// Extension-tree namespaces in the order first met, with the first prefix the file used for each.
    var extensionNamespaces: [(uri: String, hint: String?)] = []
    private var seen: Set<String> = []

    mutating func scan(_ document: GPXDocument) {
        scan(document.metadata.extensions)
        for waypoint in document.waypoints { scan(waypoint) }
        for route in document.routes {
            if let number = route.number, number < 0 { bikeride = true }
            scan(route.extensions)
            for point in route.points { scan(point) }
        }
        for track in document.tracks {
            if let number = track.number, number < 0 { bikeride = true }
            scan(track.extensions)
            for segment in track.segments {
                for point in segment.points { scan(point) }
                scan(segment.extensions)
            }
        }
        scan(document.extensions)
    }

    private mutating func scan(_ point: TrackPoint) {
        if !trackPointExtension {
            trackPointExtension = [
                point.temperatureCelsius, point.waterTemperatureCelsius, point.depthMeters, point.heartRate,
                point.cadence, point.speedMetersPerSecond, point.courseDegrees,
            ].contains { $0?.isFinite == true }
        }
        if !power, point.powerWatts?.isFinite == true { power = true }
        if !bikeride {
            if let fix = point.fix, !["none", "2d", "3d", "dgps", "pps"].contains(fix) { bikeride = true }
            if let magvar = point.magneticVariation, magvar.isFinite, !(magvar >= 0 && magvar < 360) { bikeride = true }
            if let satellites = point.satellites, satellites < 0 { bikeride = true }
            if let station = point.dgpsStationID, !(0...1023).contains(station) { bikeride = true }
        }
        if !point.extensions.isEmpty { scan(point.extensions) }
    }

    private mutating func scan(_ elements: [XMLElementNode]) {
        for element in elements {
            if element.namespace.isEmpty || element.namespace == GPXWriter.gpxNamespace { bikeride = true }
            var stack = [element]
            while let node = stack.popLast() {
                note(node.namespace, hint: node.prefix)
                for attribute in node.attributes where !attribute.namespace.isEmpty {
                    note(attribute.namespace, hint: attribute.prefix)
                }
                for child in node.children.reversed() {
                    if case .element(let child) = child { stack.append(child) }
                }
            }
        }
    }

    private mutating func note(_ uri: String, hint: String?) {
        guard !uri.isEmpty, uri != GPXWriter.gpxNamespace, uri != XMLNamespaceScope.xmlNamespace,
            uri != XMLNamespaceScope.xmlnsNamespace, seen.insert(uri).inserted
        else { return }
        extensionNamespaces.append((uri, hint))
    }
}
