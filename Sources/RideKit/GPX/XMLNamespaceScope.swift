/// The namespace bindings in force while the GPX writer writes extension trees: those declared on the root
/// element, then the ones declared locally on the elements currently open.
///
/// The writer never rebinds a prefix that is already in scope (a new prefix is always a free one), so looking
/// a URI up is a plain search; and it only ever changes the default namespace to "no namespace" (`xmlns=""`),
/// writing every other namespace with a prefix.
struct XMLNamespaceScope {
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"

    /// (prefix, URI) pairs, outermost first. Never an empty prefix.
    private(set) var bindings: [(prefix: String, uri: String)]
    /// The default namespace: the GPX namespace at the root, "" inside an element that declared `xmlns=""`.
    private(set) var defaultNamespace: String
    private var marks: [(bindings: Int, defaultNamespace: String)] = []

    init(rootBindings: [(prefix: String, uri: String)], defaultNamespace: String) {
        self.bindings = rootBindings
        self.defaultNamespace = defaultNamespace
    }

    /// The prefix bound to `uri`, if any.
    func prefix(for uri: String) -> String? {
        if uri == Self.xmlNamespace { return "xml" }
        for binding in bindings.reversed() where binding.uri == uri { return binding.prefix }
        return nil
    }

    func isBound(prefix: String) -> Bool {
        bindings.contains { $0.prefix == prefix }
    }

    /// Opens an element's scope.
    mutating func push() {
        marks.append((bindings.count, defaultNamespace))
    }

    /// Closes the innermost element's scope, dropping what it declared.
    mutating func pop() {
        let mark = marks.removeLast()
        bindings.removeSubrange(mark.bindings...)
        defaultNamespace = mark.defaultNamespace
    }

    /// Binds a new prefix to `uri` in the current scope and returns it: the file's own prefix when it is
    /// usable and free, else `ns1`, `ns2`, … (the first free one).
    mutating func bind(_ uri: String, hint: String?) -> String {
        let prefix = Self.freePrefix(hint: hint) { isBound(prefix: $0) }
        bindings.append((prefix, uri))
        return prefix
    }

    /// Declares `xmlns=""` in the current scope.
    mutating func clearDefaultNamespace() {
        defaultNamespace = ""
    }

    /// A prefix that is a valid name, not reserved, and not taken.
    static func freePrefix(hint: String?, isTaken: (String) -> Bool) -> String {
        if let hint, isUsablePrefix(hint), !isTaken(hint) { return hint }
        var number = 1
        while isTaken("ns\(number)") { number += 1 }
        return "ns\(number)"
    }

    /// Prefixes starting with `xml` (any case) are reserved by Namespaces in XML.
    static func isUsablePrefix(_ prefix: String) -> Bool {
        XMLEscaping.isValidName(prefix) && !prefix.lowercased().hasPrefix("xml")
    }
}
