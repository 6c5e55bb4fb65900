import ArgumentParser
import Foundation
import Logging
import RideStore
import RideStorePostgres

extension Bikeride {
    /// `bikeride migrate`: brings a PostgreSQL database's schema up to date before the instances start.
    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or upgrade the schema of a PostgreSQL database.",
            discussion: """
                Applies, each in its own transaction, the migrations the database lacks, and lists them. Refuses a database \
                whose schema a newer bikeride wrote. `bikeride serve --database` does the same at start; run this first when \
                several instances share the database. The URL comes from --database, else BIKERIDE_DATABASE_URL; the \
                password from the URL, else --database-password-file (or BIKERIDE_DATABASE_PASSWORD_FILE), else PGPASSWORD.
                """
        )

        @Option(help: ArgumentHelp("postgres://USER@HOST:PORT/DB", valueName: "url"))
        var database: String?

        @Option(help: ArgumentHelp("A file holding the database's password, when the URL has none.", valueName: "file"))
        var databasePasswordFile: String?

        func run() async throws {
            do {
                guard let url = try PostgresDatabaseURL.configured(option: database, passwordFile: databasePasswordFile) else {
                    throw ValidationError("give --database postgres://USER@HOST:PORT/DB (or set BIKERIDE_DATABASE_URL)")
                }
                var logger = Logger(label: "bikeride.postgres")
                logger.logLevel = .warning
                let result = try await PostgresRideStore.migrateDatabase(.init(url: url, maximumConnections: 1), logger: logger)
                for name in result.applied { print("applied: \(name)") }
                print("\(url): schema up to date (\(result.all.count) migration\(result.all.count == 1 ? "" : "s"))")
            } catch let error as ValidationError {
                throw error
            } catch {
                printError("bikeride migrate: \(error)")
                throw ExitCode.failure
            }
        }
    }
}
