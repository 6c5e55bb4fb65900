import Foundation

extension XMLScanner {
    /// The id for a namespace URI, interning it if new.
    mutating func intern(_ uri: [UInt8]) -> Int32 {
        if let id = namespaceIDs[uri] { return id }
        let id = Int32(namespaceURIs.count)
        namespaceIDs[uri] = id
        namespaceURIs.append(String(decoding: uri, as: UTF8.self))
        return id
    }

    /// The id of a namespace URI if the document has used it (or it was interned up front).
    func namespaceID(_ uri: String) -> Int32? { namespaceIDs[Array(uri.utf8)] }

    mutating func openElement(nameStart: Int, nameLength: Int, prefixLength: Int) throws(GPXError) {
        guard openElements.count < XMLScanner.maxDepth else {
            throw error(.tooDeep(limit: XMLScanner.maxDepth), at: tokenStart)
        }
        let bindingCount = bindings.count
        let savedDefault = defaultNamespace
        var declarations = 0
        // Namespace declarations first: they apply to this element's own name and attributes.
        for index in 0..<attributeCount {
            let attribute = attributes[index]
            if attribute.prefixLength == 0 {
                if attribute.qnameLength == 5 && bytesEqual(attribute.qnameStart, "xmlns") {
                    declarations += 1
                    try checkDeclarationCount(declarations, at: attribute.qnameStart)
                    let uri = attributeValueBytes(attribute)
                    let id = intern(uri)
                    if id == XMLScanner.xmlNamespace || id == XMLScanner.xmlnsNamespace {
                        throw malformed("the xml and xmlns namespaces cannot be the default namespace", at: attribute.qnameStart)
                    }
                    defaultNamespace = id
                    attributes[index].namespace = XMLScanner.xmlnsNamespace
                }
            } else if attribute.prefixLength == 5 && bytesEqual(attribute.qnameStart, "xmlns") {
                declarations += 1
                try checkDeclarationCount(declarations, at: attribute.qnameStart)
                let uri = attributeValueBytes(attribute)
                let prefixStart = attribute.localStart
                let prefixLength = attribute.localLength
                let isXMLPrefix = prefixLength == 3 && bytesEqual(prefixStart, "xml")
                if prefixLength == 5 && bytesEqual(prefixStart, "xmlns") {
                    throw malformed("the prefix xmlns cannot be declared", at: attribute.qnameStart)
                }
                guard !uri.isEmpty else { throw malformed("a prefix cannot be bound to an empty namespace", at: attribute.qnameStart) }
                let id = intern(uri)
                if isXMLPrefix != (id == XMLScanner.xmlNamespace) || id == XMLScanner.xmlnsNamespace {
                    throw malformed("the xml prefix and namespace belong only to each other", at: attribute.qnameStart)
                }
                let arenaStart = prefixArena.count
                prefixArena.append(contentsOf: UnsafeBufferPointer(start: base + prefixStart, count: prefixLength))
                let prefix = Array(UnsafeBufferPointer(start: base + prefixStart, count: prefixLength))
                let shadowed = innermostBinding.updateValue(bindings.count, forKey: prefix) ?? -1
                bindings.append((arenaStart, prefixLength, id, shadowed))
                bindingsGeneration += 1
                attributes[index].namespace = XMLScanner.xmlnsNamespace
            }
        }
        elementQNameStart = nameStart
        elementQNameLength = nameLength
        elementPrefixLength = prefixLength
        if prefixLength == 0 {
            elementNamespace = defaultNamespace
        } else {
            elementNamespace = try resolve(prefixStart: nameStart, prefixLength: prefixLength)
        }
        try resolveAttributesCheckingUniqueness()
        let arenaStart = names.count
        names.append(base + nameStart, count: nameLength)
        openElements.append((arenaStart, nameLength, bindingCount, savedDefault))
    }

    mutating func resolve(prefixStart: Int, prefixLength: Int) throws(GPXError) -> Int32 {
        // Most prefixed elements repeat the previous prefix (gpxtpx:hr, gpxtpx:cad …).
        if resolvedPrefix.generation == bindingsGeneration && resolvedPrefix.length == prefixLength
            && prefixArena.withUnsafeBufferPointer({ memcmp(base + prefixStart, $0.baseAddress! + resolvedPrefix.arenaStart, prefixLength) }) == 0
        {
            return resolvedPrefix.namespace
        }
        if bindings.count <= 8 {
            // The usual few bindings (those of the root): a search from the innermost costs less than hashing.
            var index = bindings.count - 1
            while index >= 0 {
                workSteps += 1
                let binding = bindings[index]
                if binding.prefixLength == prefixLength
                    && prefixArena.withUnsafeBufferPointer({ memcmp($0.baseAddress! + binding.prefixStart, base + prefixStart, prefixLength) })
                        == 0
                {
                    resolvedPrefix = (bindingsGeneration, binding.prefixStart, prefixLength, binding.namespace)
                    return binding.namespace
                }
                index -= 1
            }
        } else {
            // Many bindings in scope (a hostile file can have 64 on each of 1024 levels): a search would cost
            // as much for every prefixed name.
            workSteps += prefixLength
            if let index = innermostBinding[Array(UnsafeBufferPointer(start: base + prefixStart, count: prefixLength))] {
                let binding = bindings[index]
                resolvedPrefix = (bindingsGeneration, binding.prefixStart, prefixLength, binding.namespace)
                return binding.namespace
            }
        }
        let prefix = String(decoding: UnsafeBufferPointer(start: base + prefixStart, count: prefixLength), as: UTF8.self)
        if let id = undeclaredPrefixes[prefix] { return id }
        if prefixLength == 5 && bytesEqual(prefixStart, "xmlns") {
            throw malformed("xmlns is a reserved prefix", at: prefixStart)
        }
        guard lenient else {
            throw malformed("the prefix '\(prefix)' is not declared (no xmlns:\(prefix)=\"…\")", at: prefixStart)
        }
        // Lenient: files in the wild use the usual Garmin prefixes without declaring them.
        let uri: String
        switch prefix {
        case "gpxtpx": uri = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
        case "gpxpx": uri = "http://www.garmin.com/xmlschemas/PowerExtension/v1"
        case "gpxx": uri = "http://www.garmin.com/xmlschemas/GpxExtensions/v3"
        default: uri = "urn:bikeride:undeclared-prefix:\(prefix)"
        }
        let id = intern(Array(uri.utf8))
        undeclaredPrefixes[prefix] = id
        if undeclaredPrefixNotes.count < 16 {
            let (line, column) = location(of: prefixStart)
            undeclaredPrefixNotes.append((String(prefix.prefix(40)), line, column))
        }
        return id
    }

    func checkDeclarationCount(_ declarations: Int, at offset: Int) throws(GPXError) {
        guard declarations <= XMLScanner.maxNamespaceDeclarations else {
            throw error(.tooManyNamespaceDeclarations(limit: XMLScanner.maxNamespaceDeclarations), at: offset)
        }
    }

    func bytesEqual(_ offset: Int, _ text: StaticString) -> Bool {
        sameBytes(base + offset, text)
    }

    mutating func closeElement() {
        let open = openElements.removeLast()
        names.count = open.nameStart
        if bindings.count > open.bindingCount {
            for index in stride(from: bindings.count - 1, through: open.bindingCount, by: -1) {
                let binding = bindings[index]
                let prefix = Array(prefixArena[binding.prefixStart..<(binding.prefixStart + binding.prefixLength)])
                innermostBinding[prefix] = binding.shadowed >= 0 ? binding.shadowed : nil
                workSteps += binding.prefixLength
            }
            let firstRemoved = bindings[open.bindingCount]
            prefixArena.removeSubrange(firstRemoved.prefixStart...)
            bindings.removeSubrange(open.bindingCount...)
            bindingsGeneration += 1
        }
        defaultNamespace = open.defaultNamespace
        if openElements.isEmpty { rootClosed = true }
    }
}
