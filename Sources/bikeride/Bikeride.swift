import ArgumentParser

/// The `bikeride` command: wiring only; the work is done in RideKit.
@main
struct Bikeride: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikeride",
        abstract: "A self-hosted GPS tracker for rides, runs and places.",
        discussion: """
            Reads and writes GPX 1.0/1.1, the JSON track format (.gpx436) and GeoJSON, and computes distance, climb, \
            moving time and speed that you can trust.
            """,
        version: "0.1.0",
        subcommands: [
            Serve.self, Stats.self, Convert.self, Import.self, Export.self, List.self, Show.self, Rename.self, Delete.self,
            Places.self, Sync.self, Cues.self, Simulate.self, Migrate.self, Users.self, Devices.self, Copy.self, Heatmap.self, ExportAll.self,
            PrivacyZones.self, Records.self, Overview.self, Family.self,
        ]
    )
}

/// Options shared by the commands that read track files.
struct ReadOptions: ParsableArguments {
    @Flag(help: "Drop points with missing or invalid positions (and invalid values), skip unknown elements, and say how many, instead of refusing the file. Broken XML is refused either way.")
    var lenient = false
}
