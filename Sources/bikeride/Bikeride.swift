import ArgumentParser
import Foundation

@main
struct Bikeride: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikeride",
        abstract: "A self-hosted GPS tracker for rides, runs and places.",
        subcommands: [Probe.self]
    )
}

struct Probe: ParsableCommand {
    @Argument var path: String
    func run() throws { try perfProbe(path) }
}
