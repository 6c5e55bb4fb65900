@testable import RideServer
import Testing

@Suite struct ServerConfigurationTests {
    @Test func environmentVariablesOverTheDefaults() throws {
        let configuration = try ServerConfiguration(environment: [
            "BIKERIDE_HOST": "0.0.0.0", "BIKERIDE_PORT": "9090", "BIKERIDE_DATA_DIR": "/srv/bikeride", "BIKERIDE_LOG_LEVEL": "debug",
        ])
        #expect(configuration.host == "0.0.0.0" && configuration.port == 9090)
        #expect(configuration.dataDirectory == "/srv/bikeride" && configuration.logLevel == .debug)
        #expect(configuration.url == "http://localhost:9090/")
        let defaults = try ServerConfiguration(environment: [:])
        #expect(defaults.port == 8080 && defaults.host == "127.0.0.1" && defaults.url == "http://127.0.0.1:8080/")
    }

    @Test func badValuesAreRefusedWithWhatWasExpected() {
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["BIKERIDE_PORT": "eighty"]) }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: ["BIKERIDE_LOG_LEVEL": "loud"]) }
        var halfTLS = ServerConfiguration()
        halfTLS.tlsCertificatePath = "/etc/hostname"
        #expect(throws: ConfigurationError.self) { try halfTLS.validate() }
    }

    @Test func theDataDirectoryIsPerUser() {
        #expect(ServerConfiguration.defaultDataDirectory(environment: ["HOME": "/home/ann"]).hasPrefix("/home/ann/"))
        #expect(ServerConfiguration.defaultDataDirectory(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/bikeride")
    }
}
