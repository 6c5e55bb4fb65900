import Foundation

extension XMLScanner {
    // MARK: Values

    /// The bytes of an attribute value as XML defines it (references replaced, white space normalised).
    func attributeValueBytes(_ attribute: XMLAttributeToken) -> [UInt8] {
        let raw = UnsafeBufferPointer(start: base + attribute.valueStart, count: attribute.valueLength)
        guard attribute.needsDecoding else { return Array(raw) }
        var out: [UInt8] = []
        XMLScanner.decode(raw, into: &out, isAttribute: true, isCDATA: false)
        return out
    }

    /// An attribute value as a String.
    func attributeValue(_ attribute: XMLAttributeToken) -> String {
        if !attribute.needsDecoding {
            return String(decoding: UnsafeBufferPointer(start: base + attribute.valueStart, count: attribute.valueLength), as: UTF8.self)
        }
        return String(decoding: attributeValueBytes(attribute), as: UTF8.self)
    }

    /// Appends the current text run's value to `out`.
    func appendText(to out: inout [UInt8]) {
        let raw = UnsafeBufferPointer(start: base + textStart, count: textLength)
        if textNeedsDecoding {
            XMLScanner.decode(raw, into: &out, isAttribute: false, isCDATA: textIsCDATA)
        } else {
            out.append(contentsOf: raw)
        }
    }

    /// The bytes of the current element's local name.
    var elementLocalName: UnsafeBufferPointer<UInt8> {
        let offset = elementPrefixLength == 0 ? 0 : elementPrefixLength + 1
        return UnsafeBufferPointer(start: base + elementQNameStart + offset, count: elementQNameLength - offset)
    }

    var elementQName: String {
        String(decoding: UnsafeBufferPointer(start: base + elementQNameStart, count: elementQNameLength), as: UTF8.self)
    }

    var elementPrefix: String? {
        elementPrefixLength == 0
            ? nil : String(decoding: UnsafeBufferPointer(start: base + elementQNameStart, count: elementPrefixLength), as: UTF8.self)
    }

    func localName(of attribute: XMLAttributeToken) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + attribute.localStart, count: attribute.localLength)
    }

    func prefix(of attribute: XMLAttributeToken) -> String? {
        attribute.prefixLength == 0
            ? nil : String(decoding: UnsafeBufferPointer(start: base + attribute.qnameStart, count: attribute.prefixLength), as: UTF8.self)
    }

    /// The current text run's raw bytes (valid until the next call to `next()`).
    var rawText: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + textStart, count: textLength) }
}
