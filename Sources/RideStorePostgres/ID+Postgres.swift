import PostgresNIO
import RideKit

/// A typed id is bound and read as its `ShortID`'s 8 characters (`text`), as SQLite stores it.
extension ID: PostgresEncodable, PostgresNonThrowingEncodable {
    public static var psqlType: PostgresDataType { .text }
    public static var psqlFormat: PostgresFormat { .binary }

    public func encode<JSONEncoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        byteBuffer.writeString(rawValue)
    }
}

extension ID: PostgresDecodable {
    public init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
        context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        let text = try String(from: &buffer, type: type, format: format, context: context)
        guard let id = ID(text) else { throw PostgresDecodingError.Code.failure }
        self = id
    }
}
