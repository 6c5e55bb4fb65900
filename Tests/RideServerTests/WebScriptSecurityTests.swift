import Foundation
import TestSupport
@testable import RideServer
import Testing

/// Node.js, when installed.
private let nodePath: String? = ["/usr/bin/node", "/usr/local/bin/node"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// The web app's own code under attack (issue 20, findings 7 and 8), run in Node with the few browser objects it
/// needs stubbed: where the login page goes afterwards, and what the service worker answers in place of the network.
@Suite(.enabled(if: nodePath != nil, "needs node"))
struct WebScriptSecurityTests {
    static var node: String? { nodePath }
    static let web = URL(filePath: ServerConfiguration.defaultWebRoot())

    /// Runs `script` (an ES module) in Node from a temporary folder holding copies of `files` of Web/ (as `.mjs`
    /// when `asModules`), and returns what it printed.
    static func run(_ script: String, copying files: [String], asModules: Bool) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-js-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in files {
            let name = asModules ? file.replacingOccurrences(of: ".js", with: ".mjs") : file.replacingOccurrences(of: ".js", with: ".cjs")
            try FileManager.default.copyItem(at: web.appending(path: file), to: folder.appending(path: URL(filePath: name).lastPathComponent))
        }
        try script.write(to: folder.appending(path: "main.mjs"), atomically: true, encoding: .utf8)
        let process = TestProcess()
        process.executableURL = URL(filePath: try #require(node))
        process.arguments = [folder.appending(path: "main.mjs").path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }

    /// After a login, `next` is followed only to a path of this site, read as the browser reads it: a backslash
    /// or a tab in `/\evil.example/` and `/%09/evil.example` (`/\t/…` once decoded) make it another site.
    @Test func theLoginPageGoesBackOnlyToThisSite() throws {
        let cases: [(next: String, expected: String)] = [
            ("/\\evil.example/", "/"), ("/\t/evil.example/", "/"), ("/\n/evil.example", "/"), ("//evil.example", "/"),
            ("https://evil.example/", "/"), ("javascript:alert(1)", "/"), ("/\\/evil.example", "/"), (" /x", "/"),
            ("/#tracks", "/#tracks"), ("/index.html?x=1#places", "/index.html?x=1#places"), ("/live/abc", "/live/abc"),
        ]
        let list = try String(decoding: JSONEncoder().encode(cases.map(\.next)), as: UTF8.self)
        let script = """
            globalThis.location = { search: '', origin: 'http://localhost:8080' };
            globalThis.document = { getElementById: () => ({ addEventListener() {}, elements: {} }) };
            const { destination } = await import('./login.mjs');
            console.log(JSON.stringify(\(list).map((next) => destination(next, 'http://localhost:8080'))));
            """
        let output = try Self.run(script, copying: ["js/login.js"], asModules: true)
        let answers = try JSONDecoder().decode([String].self, from: Data(output.utf8))
        for (index, item) in cases.enumerated() { #expect(answers[index] == item.expected, "next=\(item.next.debugDescription)") }
    }

    /// The service worker lets the pages of share and live links (and their files) through to the network: it used
    /// to answer them with the app's page.
    @Test func theServiceWorkerLetsLinkPagesThrough() throws {
        let script = """
            const listeners = {};
            globalThis.self = { addEventListener: (type, f) => { listeners[type] = f; }, location: { origin: 'http://localhost:8080' } };
            globalThis.caches = { open: async () => ({ match: async () => undefined, put() {}, add: async () => {} }), keys: async () => [] };
            globalThis.fetch = async () => ({ ok: true, clone() { return this; } });
            globalThis.Request = class { constructor(url) { this.url = url; } };
            await import('./sw.cjs');
            const answered = {};
            for (const path of ['/share/abc', '/live/abc', '/ride/abc', '/share/abc/photos/1', '/live/abc.json', '/', '/index.html']) {
              for (const mode of ['navigate', 'no-cors']) {
                let responded = false;
                listeners.fetch({ request: { method: 'GET', url: 'http://localhost:8080' + path, mode }, respondWith() { responded = true; } });
                answered[path + ' ' + mode] = responded;
              }
            }
            console.log(JSON.stringify(answered));
            """
        let output = try Self.run(script, copying: ["sw.js"], asModules: false)
        let answered = try JSONDecoder().decode([String: Bool].self, from: Data(output.utf8))
        for path in ["/share/abc", "/live/abc", "/ride/abc", "/share/abc/photos/1", "/live/abc.json"] {
            #expect(answered[path + " navigate"] == false && answered[path + " no-cors"] == false, "\(path)")
        }
        // The app itself still comes from the worker (offline).
        #expect(answered["/ navigate"] == true && answered["/index.html navigate"] == true)
    }
}
