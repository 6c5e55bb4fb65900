import ArgumentParser

@main
struct Bikeride: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikeride",
        abstract: "A self-hosted GPS tracker for rides, runs and places."
    )
}
