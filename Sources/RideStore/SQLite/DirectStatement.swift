import Foundation
import GRDB
import GRDBSQLite
import RideKit

/// A statement of GRDB's per-connection cache, bound, stepped and read through SQLite's C interface.
///
/// For the statements every phone-app post runs (ingestion, `SQLiteRideStore.ingest`): once a post was a dozen
/// small statements, GRDB's work around each (its arguments as `DatabaseValue`s, its execution hooks, `Row`s)
/// cost more than SQLite's own (Benchmarks/README.md). GRDB still prepares the statement once per connection
/// and finalizes it with the connection; this only binds plain values and reads columns. Nothing here observes
/// transactions (the store registers no GRDB observers), so skipping GRDB's hooks loses nothing.
struct DirectStatement {
    private let handle: OpaquePointer
    private let db: Database

    init(_ db: Database, _ sql: String) throws {
        handle = try db.cachedStatement(sql: sql).sqliteStatement
        self.db = db
    }

    /// Runs the statement to its end; returns how many rows it changed.
    @discardableResult
    func execute(_ arguments: any DirectBindable...) throws -> Int {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        while try step() {}
        return db.changesCount
    }

    /// The first row, read by `decode`; nil when there is none.
    func fetchOne<Value>(_ arguments: any DirectBindable..., decode: (DirectRow) throws -> Value) throws -> Value? {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        guard try step() else { return nil }
        return try decode(DirectRow(handle: handle))
    }

    /// Every row, each read by `decode`.
    func fetchAll<Value>(_ arguments: any DirectBindable..., decode: (DirectRow) throws -> Value) throws -> [Value] {
        try bind(arguments)
        defer { sqlite3_reset(handle) }
        var values: [Value] = []
        while try step() { values.append(try decode(DirectRow(handle: handle))) }
        return values
    }

    private func bind(_ arguments: [any DirectBindable]) throws {
        sqlite3_reset(handle)
        guard arguments.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw RideStoreError.database("statement takes \(sqlite3_bind_parameter_count(handle)) values, given \(arguments.count)")
        }
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch argument.directValue {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let value): code = sqlite3_bind_int64(handle, index, value)
            case .real(let value): code = sqlite3_bind_double(handle, index, value)
            case .text(let value):
                // With its byte count: a string holding a NUL byte is bound whole, not cut there.
                code = value.withCString { sqlite3_bind_text64(handle, index, $0, UInt64(value.utf8.count), transient, UInt8(SQLITE_UTF8)) }
            case .blob(let value):
                code = value.withUnsafeBytes { bytes in
                    // An empty blob still needs a non-null pointer to be a blob, not NULL.
                    sqlite3_bind_blob64(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(bytes.count), transient)
                }
            }
            guard code == SQLITE_OK else { throw failure(code) }
        }
    }

    /// One step: true when it gave a row, false when done.
    private func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw failure(code)
        }
    }

    private func failure(_ code: Int32) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
            sql: String(cString: sqlite3_sql(handle)))
    }
}

/// A value bound to a `DirectStatement`.
enum DirectValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// What can be bound to a `DirectStatement`: the plain values ingestion stores, ids as their text, nil as NULL.
protocol DirectBindable {
    var directValue: DirectValue { get }
}

extension Int64: DirectBindable {
    var directValue: DirectValue { .integer(self) }
}

extension Int: DirectBindable {
    var directValue: DirectValue { .integer(Int64(self)) }
}

extension Double: DirectBindable {
    var directValue: DirectValue { .real(self) }
}

extension String: DirectBindable {
    var directValue: DirectValue { .text(self) }
}

extension Data: DirectBindable {
    var directValue: DirectValue { .blob(self) }
}

extension ShortID: DirectBindable {
    var directValue: DirectValue { .text(rawValue) }
}

extension ID: DirectBindable {
    var directValue: DirectValue { .text(rawValue) }
}

extension Optional: DirectBindable where Wrapped: DirectBindable {
    var directValue: DirectValue { self?.directValue ?? .null }
}

/// The current row of a `DirectStatement`, valid inside its `decode` closure only.
struct DirectRow {
    fileprivate let handle: OpaquePointer

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
    func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }
    func real(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func optionalReal(_ column: Int32) -> Double? { isNull(column) ? nil : real(column) }

    func text(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// An id column; a row whose id is not a well-formed one is damage, not a value to guess at.
    func id<Kind>(_ column: Int32) throws -> ID<Kind> {
        guard let text = text(column), let id = ID<Kind>(text) else {
            throw RideStoreError.damaged("column \(column) holds no well-formed id: \(text(column) ?? "NULL")")
        }
        return id
    }

    func data(_ column: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, column)))
    }
}

/// SQLite copies a value bound with this destructor before the call returns (the C macro `SQLITE_TRANSIENT`).
private let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
