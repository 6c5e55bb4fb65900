import CExpat
import Foundation
import TestSupport
import Testing

@testable import RideKit

/// Reads XML with libexpat in namespace mode into `XMLElementNode` trees, so that writer tests can check
/// what a conforming parser sees — expanded namespace names, attribute values after normalisation, text —
/// independently of the GPX reader.
enum WriterTestXML {
    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    private final class Builder {
        var stack: [XMLElementNode] = []
        var root: XMLElementNode?

        func start(_ name: String, _ attributes: [(String, String)]) {
            let (namespace, localName) = WriterTestXML.split(name)
            let attributes = attributes.map { name, value in
                let (namespace, localName) = WriterTestXML.split(name)
                return XMLAttribute(namespace: namespace, localName: localName, value: value)
            }
            stack.append(XMLElementNode(namespace: namespace, localName: localName, attributes: attributes))
        }

        func text(_ text: String) {
            guard !stack.isEmpty else { return }
            if case .text(let previous)? = stack[stack.count - 1].children.last {
                stack[stack.count - 1].children[stack[stack.count - 1].children.count - 1] = .text(previous + text)
            } else {
                stack[stack.count - 1].children.append(.text(text))
            }
        }

        func end() {
            let node = stack.removeLast()
            if stack.isEmpty { root = node } else { stack[stack.count - 1].children.append(.element(node)) }
        }
    }

    static let separator: CChar = 1

    static func split(_ name: String) -> (String, String) {
        if let index = name.firstIndex(of: "\u{1}") {
            return (String(name[..<index]), String(name[name.index(after: index)...]))
        }
        return ("", name)
    }

    /// Parses a whole document; throws with expat's message if it is not well-formed.
    static func parse(_ bytes: [UInt8]) throws -> XMLElementNode {
        guard let parser = XML_ParserCreateNS("UTF-8", separator) else { throw ParseError(description: "no parser") }
        defer { XML_ParserFree(parser) }
        let builder = Builder()
        let unmanaged = Unmanaged.passRetained(builder)
        defer { unmanaged.release() }
        XML_SetUserData(parser, unmanaged.toOpaque())
        XML_SetElementHandler(
            parser,
            { data, name, attributes in
                let builder = Unmanaged<Builder>.fromOpaque(data!).takeUnretainedValue()
                var pairs: [(String, String)] = []
                var index = 0
                while let key = attributes?[index], let value = attributes?[index + 1] {
                    pairs.append((String(cString: key), String(cString: value)))
                    index += 2
                }
                builder.start(String(cString: name!), pairs)
            },
            { data, _ in
                Unmanaged<Builder>.fromOpaque(data!).takeUnretainedValue().end()
            })
        XML_SetCharacterDataHandler(parser) { data, characters, length in
            let builder = Unmanaged<Builder>.fromOpaque(data!).takeUnretainedValue()
            let buffer = UnsafeRawBufferPointer(start: characters, count: Int(length))
            builder.text(String(decoding: buffer, as: UTF8.self))
        }
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                XML_Parse(parser, chars.baseAddress, Int32(chars.count), 1)
            }
        }
        guard status == XML_STATUS_OK else {
            let message = String(cString: XML_ErrorString(XML_GetErrorCode(parser)))
            throw ParseError(
                description: "\(message) at line \(XML_GetCurrentLineNumber(parser)) column \(XML_GetCurrentColumnNumber(parser))")
        }
        guard let root = builder.root else { throw ParseError(description: "no root") }
        return root
    }

    /// Validates with `xmllint --schema` against the official GPX 1.1 schema; returns xmllint's messages
    /// on failure, nil when valid.
    static func schemaErrors(_ bytes: [UInt8]) throws -> String? {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("bikeride-writer-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("out.gpx")
        try Data(bytes).write(to: file)
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: xmllintPath!)
        process.arguments = ["--noout", "--nonet", "--schema", schemaPath, file.path]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? nil : String(decoding: output, as: UTF8.self)
    }

    /// The GPX 1.1 schema in the shared fixtures (next to the repository, or BIKERIDE_FIXTURES).
    static var schemaPath: String {
        let fixtures =
            ProcessInfo.processInfo.environment["BIKERIDE_FIXTURES"]
            ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures").path
        return fixtures + "/schema/gpx-1.1.xsd"
    }

    static let xmllintPath: String? = ["/usr/bin/xmllint", "/usr/local/bin/xmllint", "/opt/homebrew/bin/xmllint"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// True when schema validation can run; the test command installs libxml2-utils, so a skip means a
    /// machine set up by hand.
    static var canValidate: Bool { xmllintPath != nil && FileManager.default.fileExists(atPath: schemaPath) }
}

extension XMLElementNode {
    /// Element children with the given local name (any namespace).
    func writtenChildren(_ localName: String) -> [XMLElementNode] {
        children.compactMap { child in
            if case .element(let element) = child, element.localName == localName { return element }
            return nil
        }
    }

    var writtenElementChildren: [XMLElementNode] {
        children.compactMap { child in
            if case .element(let element) = child { return element }
            return nil
        }
    }

    /// The same tree without prefix hints, for comparing what a parser sees.
    var withoutPrefixHints: XMLElementNode {
        var copy = self
        copy.prefix = nil
        copy.attributes = attributes.map { attribute in
            var attribute = attribute
            attribute.prefix = nil
            return attribute
        }
        copy.children = children.map { child in
            if case .element(let element) = child { return .element(element.withoutPrefixHints) }
            return child
        }
        return copy
    }
}
