import Foundation

extension XMLScanner {
    // MARK: Reading in parts (see `SpeculativeReading`)

    /// Offset of the current position from the start of the input.
    var inputOffset: Int { bufferOffset + position }

    /// A scanner for a part of the same document, read from `source`, that starts in this scanner's present
    /// context: the same open elements, namespace bindings and namespace ids. Shares no storage with this one.
    func partScanner(reading source: any ByteSource) -> XMLScanner {
        var part = XMLScanner(source: source, lenient: lenient, encodingCheck: encodingCheck)
        part.namespaceURIs = namespaceURIs
        part.namespaceIDs = namespaceIDs
        part.prefixArena = prefixArena
        part.bindings = bindings
        part.innermostBinding = innermostBinding
        part.defaultNamespace = defaultNamespace
        part.undeclaredPrefixes = undeclaredPrefixes
        part.names.append(names.pointer, count: names.count)
        part.openElements = openElements
        part.seenRoot = true
        part.partDepth = openElements.count
        return part
    }

    /// Whether this scanner is between tokens in the same context as `other`: the same open elements by name,
    /// the same namespace bindings and default namespace. Namespace ids compare as URIs because both scanners
    /// intern from the same start (see `partScanner(reading:)`).
    func hasSameContext(as other: XMLScanner) -> Bool {
        guard !pendingEnd, !other.pendingEnd, openElements.count == other.openElements.count,
            names.count == other.names.count, memcmp(names.pointer, other.names.pointer, names.count) == 0,
            defaultNamespace == other.defaultNamespace, bindings.count == other.bindings.count
        else { return false }
        for (mine, theirs) in zip(openElements, other.openElements) {
            guard mine.nameLength == theirs.nameLength, mine.bindingCount == theirs.bindingCount,
                mine.defaultNamespace == theirs.defaultNamespace
            else { return false }
        }
        for (mine, theirs) in zip(bindings, other.bindings) {
            guard mine.namespace == theirs.namespace, mine.prefixLength == theirs.prefixLength,
                namespaceURIs[Int(mine.namespace)] == other.namespaceURIs[Int(theirs.namespace)],
                prefixArena[mine.prefixStart..<(mine.prefixStart + mine.prefixLength)]
                    == other.prefixArena[theirs.prefixStart..<(theirs.prefixStart + theirs.prefixLength)]
            else { return false }
        }
        return true
    }

    /// Lines and columns from the start of this scanner's input to the end of what it has read: how many line
    /// feeds, and how many characters follow the last one (or all of them, if there was none).
    var extentOfInput: (newlines: Int, tailColumns: Int) {
        let newlines = linesBeforeBuffer - 1 + XMLScanner.countNewlines(base, count: end)
        var index = end
        var tail = 0
        while index > 0 && base[index - 1] != 10 {
            index -= 1
            if base[index] & 0xC0 != 0x80 { tail += 1 }
        }
        return (newlines, index == 0 ? columnCarry + tail : tail)
    }

    /// Passes over the input up to `offset` without tokenizing it (another scanner read that part, which spans
    /// `extent` lines and columns from the current position), keeping lines and columns right for later
    /// messages. The scanner must be between tokens. A source that can seek is not read at all.
    mutating func skip(to offset: Int, extent: (newlines: Int, tailColumns: Int)) throws(GPXError) {
        precondition(!pendingEnd && offset >= inputOffset)
        if offset > bufferOffset + end, source.seek(to: offset) {
            countLines(before: position)
            if extent.newlines > 0 {
                linesBeforeBuffer += extent.newlines
                columnCarry = extent.tailColumns
            } else {
                columnCarry += extent.tailColumns
            }
            bufferOffset = offset
            atEndOfInput = false
            end = 0
            position = 0
            tokenStart = 0
            currentTokenStart = 0
            return
        }
        while bufferOffset + end < offset {
            position = end
            tokenStart = end
            guard try refill() else {
                throw error(.truncated(truncationMessage()), at: end)
            }
        }
        position = offset - bufferOffset
        tokenStart = position
        currentTokenStart = position
    }
}
