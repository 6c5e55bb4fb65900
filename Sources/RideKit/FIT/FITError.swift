/// Why a FIT file could not be read, and where: `offset` is the byte of the file where the problem was found.
public struct FITError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        /// The file is shorter than its header says (or than a record needs): it ends early.
        case truncated(expectedBytes: Int)
        /// Not a FIT file: no `.FIT` signature, or a header size that is neither 12 nor 14.
        case notFIT(String)
        /// The header's own CRC does not match its bytes.
        case headerCRC(stored: UInt16, computed: UInt16)
        /// The CRC at the end of the file does not match its bytes.
        case fileCRC(stored: UInt16, computed: UInt16)
        /// A data message of a local type that no definition came before.
        case undefinedLocalType(UInt8)
        /// A definition that cannot be right (an unknown architecture byte).
        case badDefinition(String)
        /// More of something than the format ever needs (a bound against hostile files).
        case tooLarge(String)
    }

    public var reason: Reason
    public var offset: Int

    public init(_ reason: Reason, offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch reason {
        case .truncated(let expected): what = "the file ends early (\(expected) more bytes expected)"
        case .notFIT(let detail): what = "not a FIT file: \(detail)"
        case .headerCRC(let stored, let computed):
            what = "the header's CRC is wrong (stored \(hex(stored)), computed \(hex(computed)))"
        case .fileCRC(let stored, let computed):
            what = "the file's CRC is wrong (stored \(hex(stored)), computed \(hex(computed))): the file is damaged"
        case .undefinedLocalType(let type): what = "a data message of local type \(type) comes before any definition of it"
        case .badDefinition(let detail): what = "a definition message is damaged: \(detail)"
        case .tooLarge(let detail): what = detail
        }
        return "FIT, byte \(offset): \(what)"
    }

    private func hex(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
