import ArgumentParser
import Foundation
import Logging
import RideStore
import RideStorePostgres

extension Bikeride {
    /// `bikeride copy --from DATA_DIR --to postgres://…`: moves a SQLite library into PostgreSQL.
    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a library (a data directory's SQLite store and photos) into a PostgreSQL database.",
            discussion: """
                Everything moves: users and their passwords, sessions, devices and their fixes, tracks with their points, \
                recordings, places with notes, labels and photos, share links, and what the documents folder held. The \
                library is opened read-only and read from one snapshot; stop `bikeride serve` on it first, or what it \
                writes meanwhile is not copied. The database gets bikeride's schema if it has none (as `bikeride migrate`).

                Resumable: rows go in batches of one transaction each, and rows already in the database are kept, so after \
                an interruption run the same command again: it copies what is missing and duplicates nothing. A database \
                that holds users the library does not have (another library) is refused.

                Checked: afterwards every table is counted and hashed (SHA-256 of its rows in key order) on both sides; \
                the summary shows both, and the command fails naming any table that differs. Progress goes to standard \
                error, the summary to standard output. The password comes from the URL, else --database-password-file, else PGPASSWORD.
                """
        )

        @Option(help: ArgumentHelp("The data directory of the library to copy (the one that holds bikeride.sqlite).", valueName: "DIR"))
        var from: String

        @Option(help: ArgumentHelp("The PostgreSQL database: postgres://USER@HOST:PORT/DB (or set BIKERIDE_DATABASE_URL).", valueName: "URL"))
        var to: String?

        @Option(help: ArgumentHelp(
            "A file holding the database's password (or set BIKERIDE_DATABASE_PASSWORD_FILE); used when the URL has none, before PGPASSWORD.",
            valueName: "file"))
        var databasePasswordFile: String?

        @Flag(help: "Only count and compare the tables on both sides; copy nothing.")
        var checkOnly = false

        @Flag(help: "Print the summary as JSON.")
        var json = false

        @Option(help: "Rows a batch (one transaction) holds at most (default 1000).")
        var batchSize: Int?

        func validate() throws {
            if let batchSize, !(1...100_000).contains(batchSize) { throw ValidationError("--batch-size takes a number from 1 to 100,000") }
            if from.isEmpty { throw ValidationError("--from takes the data directory of the library to copy") }
        }

        func run() async throws {
            let url: PostgresDatabaseURL
            do {
                guard let given = try PostgresDatabaseURL.configured(option: to, passwordFile: databasePasswordFile) else {
                    throw ValidationError("give --to postgres://USER@HOST:PORT/DB (or set BIKERIDE_DATABASE_URL)")
                }
                url = given
            } catch let error as ValidationError {
                throw error
            } catch {
                printError("bikeride copy: --to: \(error)")
                throw ExitCode.failure
            }
            let directory = DataDirectory(url: URL(filePath: from, directoryHint: .isDirectory))
            var logger = Logger(label: "bikeride.postgres")
            logger.logLevel = .warning
            let report: LibraryCopy.Report
            let store: PostgresRideStore
            do {
                store = try await PostgresRideStore.open(.init(url: url, maximumConnections: 2), logger: logger)
            } catch {
                printError("bikeride copy: cannot open \(url): \(error)")
                throw ExitCode.failure
            }
            let progress = ProgressPrinter()
            do {
                if checkOnly {
                    report = try await LibraryCopy.check(from: directory, to: store) { progress.show($0) }
                } else {
                    var options = LibraryCopy.Options()
                    if let batchSize { options.batchRows = batchSize }
                    report = try await LibraryCopy.copy(from: directory, to: store, options: options) { progress.show($0) }
                }
                await store.close()
            } catch {
                await store.close()
                printError("bikeride copy: \(error)")
                throw ExitCode.failure
            }
            if json {
                print(try encodeJSON(Summary(source: directory.url.path, target: url.description, report: report)))
            } else {
                var rows = [["TABLE", "SOURCE", "TARGET", "COPIED", "CHECKSUM"]]
                for table in report.tables {
                    rows.append([
                        table.table, "\(table.sourceRows)", "\(table.targetRows)", "\(table.copiedRows)",
                        table.matches ? "same (\(table.sourceChecksum.prefix(12)))" : "DIFFERS (\(table.sourceChecksum.prefix(12)) / \(table.targetChecksum.prefix(12)))",
                    ])
                }
                print(renderTable(rows, rightAligned: [1, 2, 3]))
            }
            guard report.differing.isEmpty else {
                printError("bikeride copy: the database differs from the library in: \(report.differing.joined(separator: ", "))")
                throw ExitCode.failure
            }
            printError(
                checkOnly
                    ? "the database holds the library \(directory.url.path) as it is"
                    : "copied \(report.copiedRows) new rows; the database holds the library \(directory.url.path) as it is")
        }

        struct Summary: Encodable {
            var source: String
            var target: String
            var report: LibraryCopy.Report

            enum CodingKeys: String, CodingKey { case source, target, tables, differing, copiedRows, same }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(source, forKey: .source)
                try container.encode(target, forKey: .target)
                try container.encode(report.tables, forKey: .tables)
                try container.encode(report.differing, forKey: .differing)
                try container.encode(report.copiedRows, forKey: .copiedRows)
                try container.encode(report.differing.isEmpty, forKey: .same)
            }
        }
    }
}

/// Progress on standard error: a line when a table starts and ends, and at most one a second in between.
private final class ProgressPrinter: @unchecked Sendable {
    private let lock = NSLock()
    private var lastLine = Date.distantPast
    private var checking = false

    func show(_ progress: LibraryCopy.Progress) {
        lock.withLock {
            switch progress {
            case .copying(let table, let read, let total, let copied):
                let now = Date()
                guard read == 0 || read == total || now.timeIntervalSince(lastLine) >= 1 else { return }
                lastLine = now
                printError("copying \(table): \(read) of \(total) rows read, \(copied) new")
            case .checking(let table):
                if !checking { printError("checking: counting and hashing every table on both sides") }
                checking = true
                printError("checking \(table)")
            }
        }
    }
}
