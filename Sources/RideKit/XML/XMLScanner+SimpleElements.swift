import Foundation

extension XMLScanner {
    /// After a text event: if the end tag of the open element follows in full, consumes it and returns true.
    /// The text's bytes then stay where they are until the next call to `next()`, so the caller can read them in
    /// place. Returns false (consuming nothing) in every other case, and `next()` goes on as usual.
    mutating func consumeEndTagAfterText() -> Bool {
        guard !pendingEnd, let open = openElements.last else { return false }
        let nameStart = position + 2
        let close = nameStart + open.nameLength
        guard close < end, base[position] == UInt8(ascii: "<"), base[position + 1] == UInt8(ascii: "/"),
            base[close] == UInt8(ascii: ">"), sameBytes(names.pointer + open.nameStart, base + nameStart, open.nameLength)
        else { return false }
        workSteps += close + 1 - position
        position = close + 1
        closeElement()
        return true
    }

    /// Looks for the commonest thing in a GPX file, an element with no attributes and plain text
    /// (`<ele>53.6</ele>`, `<gpxtpx:hr>96</gpxtpx:hr>`), after any indentation. When found it sets the element's
    /// name and namespace, `rawText` and `currentTokenStart`, and returns true; the caller then takes it with
    /// `acceptSimpleElement()` or leaves it for `next()`. Anything less plain (attributes, references, CR,
    /// non-ASCII, comments, a child, the end of the buffer) returns false and `next()` reads it the general way,
    /// so this path never has to be right about anything but the plain case.
    mutating func peekSimpleElement() -> Bool {
        guard !pendingEnd, !openElements.isEmpty, openElements.count < XMLScanner.maxDepth else { return false }
        let begin = position
        var p = afterIndentation(position)
        defer { workSteps += p - begin }
        position = p
        guard p + 1 < end, base[p] == UInt8(ascii: "<"), classes[Int(base[p + 1])] & XMLScanner.nameStartClass != 0 else { return false }
        let nameStart = p + 1
        var colon = -1
        p = nameStart
        while p < end {
            let byte = base[p]
            if classes[Int(byte)] & XMLScanner.plainNameClass != 0 {
                p += 1
                continue
            }
            guard byte == UInt8(ascii: ":") else { break }
            guard colon < 0 else { return false }
            colon = p
            p += 1
        }
        guard p < end, base[p] == UInt8(ascii: ">") else { return false }
        let nameLength = p - nameStart
        if colon >= 0 {
            guard colon > nameStart, colon < p - 1, classes[Int(base[colon + 1])] & XMLScanner.nameStartClass != 0 else { return false }
        }
        // The name is one `scanName` accepts, ending at '>': kept for `scanStartTag` should the element turn out
        // not to be simple.
        let prefixLength = colon < 0 ? 0 : colon - nameStart
        peekedTagName = (bufferOffset + nameStart, nameLength, prefixLength)
        p += 1
        let valueStart = p
        while p < end, classes[Int(base[p])] & XMLScanner.textSpecialClass == 0 { p += 1 }
        let closeEnd = p + 2 + nameLength
        guard closeEnd < end, base[p] == UInt8(ascii: "<"), base[p + 1] == UInt8(ascii: "/"), base[closeEnd] == UInt8(ascii: ">"),
            sameBytes(base + p + 2, base + nameStart, nameLength)
        else { return false }
        if prefixLength == 0 {
            elementNamespace = defaultNamespace
        } else {
            guard let namespace = try? resolve(prefixStart: nameStart, prefixLength: prefixLength) else { return false }
            elementNamespace = namespace
        }
        elementQNameStart = nameStart
        elementQNameLength = nameLength
        elementPrefixLength = prefixLength
        attributeCount = 0
        textStart = valueStart
        textLength = p - valueStart
        textNeedsDecoding = false
        textIsCDATA = false
        currentTokenStart = nameStart - 1
        simpleElementEnd = closeEnd + 1
        workSteps += simpleElementEnd - p
        return true
    }

    /// Takes the element `peekSimpleElement()` found: the scanner moves past its end tag.
    mutating func acceptSimpleElement() {
        position = simpleElementEnd
    }
}
