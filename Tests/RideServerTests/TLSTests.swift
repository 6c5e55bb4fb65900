import Foundation
import TestSupport
import Hummingbird
import HummingbirdTesting
@testable import RideServer
import Testing

/// A self-signed certificate for localhost, made with the system's openssl; nil where there is none.
private func makeCertificate() throws -> (certificate: String, key: String)? {
    let directory = FileManager.default.temporaryDirectory.appending(path: "bikeride-tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let certificate = directory.appending(path: "cert.pem").path
    let key = directory.appending(path: "key.pem").path
    let process = TestProcess()
    process.executableURL = URL(filePath: "/usr/bin/env")
    process.arguments = [
        "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
        "-subj", "/CN=localhost",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do { try process.run() } catch { return nil }
    process.waitUntilExit()
    return process.terminationStatus == 0 ? (certificate, key) : nil
}

@Suite struct TLSTests {
    @Test func withACertificateTheServerSpeaksHTTPS() async throws {
        guard let (certificate, key) = try makeCertificate() else {
            Issue.record("openssl is needed to make a test certificate")
            return
        }
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.tlsCertificatePath = certificate
        configuration.tlsKeyPath = key
        configuration.logLevel = .warning
        #expect(configuration.usesTLS && configuration.url.hasPrefix("https://"))
        let database = try TemporaryStore()
        let app = try buildApplication(configuration: configuration, library: try await database.open())
        try await app.test(.ahc(.https)) { client in
            let response = try await client.execute(uri: "/health", method: .get)
            #expect(response.status == .ok)
        }
        _ = database
    }

    @Test func aMissingCertificateIsRefusedBeforeStarting() {
        var configuration = ServerConfiguration()
        configuration.tlsCertificatePath = "/nonexistent/cert.pem"
        configuration.tlsKeyPath = "/nonexistent/key.pem"
        #expect(throws: ConfigurationError.missingFile("/nonexistent/cert.pem")) { try configuration.validate() }
    }
}
