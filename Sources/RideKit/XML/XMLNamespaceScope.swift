/// The namespace bindings in force while the GPX writer writes extension trees: those declared on the root
/// element, then the ones declared locally on the elements currently open.
///
/// The writer never rebinds a prefix that is already in scope (a new prefix is always a free one) and binds a
/// URI only when none is in scope, so a URI has one prefix and a prefix one URI; and it only ever changes the
/// default namespace to "no namespace" (`xmlns=""`), writing every other namespace with a prefix. Every lookup
/// is a hash lookup: extension trees come from uploaded files, which can use thousands of namespaces.
struct XMLNamespaceScope {
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
    static let xmlnsNamespace = "http://www.w3.org/2000/xmlns/"

    /// (prefix, URI) pairs, outermost first. Never an empty prefix.
    private(set) var bindings: [(prefix: String, uri: String)]
    /// The default namespace: the GPX namespace at the root, "" inside an element that declared `xmlns=""`.
    private(set) var defaultNamespace: String
    private var marks: [(bindings: Int, defaultNamespace: String, firstFreeNumber: Int)] = []
    /// The prefix of each URI in scope (the innermost, were a URI bound twice on the root).
    private var prefixForURI: [String: String] = [:]
    private var boundPrefixes: Set<String> = []
    /// Every `ns<n>` with n below this is bound: the search for a free one starts here.
    private var firstFreeNumber = 1

    init(rootBindings: [(prefix: String, uri: String)], defaultNamespace: String) {
        self.bindings = rootBindings
        self.defaultNamespace = defaultNamespace
        for binding in rootBindings {
            prefixForURI[binding.uri] = binding.prefix
            boundPrefixes.insert(binding.prefix)
        }
    }

    /// The prefix bound to `uri`, if any.
    func prefix(for uri: String) -> String? {
        if uri == Self.xmlNamespace { return "xml" }
        return prefixForURI[uri]
    }

    /// Opens an element's scope.
    mutating func push() {
        marks.append((bindings.count, defaultNamespace, firstFreeNumber))
    }

    /// Closes the innermost element's scope, dropping what it declared.
    mutating func pop() {
        let mark = marks.removeLast()
        // Each binding dropped bound a URI that had none and a prefix that was free (see `bind`).
        for binding in bindings[mark.bindings...] {
            prefixForURI[binding.uri] = nil
            boundPrefixes.remove(binding.prefix)
        }
        bindings.removeSubrange(mark.bindings...)
        defaultNamespace = mark.defaultNamespace
        firstFreeNumber = mark.firstFreeNumber
    }

    /// Binds a new prefix to `uri`, which has none in scope, in the current scope and returns it: the file's own
    /// prefix when it is usable and free, else `ns1`, `ns2`, … (the first free one).
    mutating func bind(_ uri: String, hint: String?) -> String {
        var number = firstFreeNumber
        let taken = boundPrefixes
        let prefix = Self.freePrefix(hint: hint, firstFreeNumber: &number) { taken.contains($0) }
        firstFreeNumber = number
        bindings.append((prefix, uri))
        prefixForURI[uri] = prefix
        boundPrefixes.insert(prefix)
        return prefix
    }

    /// Declares `xmlns=""` in the current scope.
    mutating func clearDefaultNamespace() {
        defaultNamespace = ""
    }

    /// A prefix that is a valid name, not reserved, and not taken.
    static func freePrefix(hint: String?, isTaken: (String) -> Bool) -> String {
        var firstFreeNumber = 1
        return freePrefix(hint: hint, firstFreeNumber: &firstFreeNumber, isTaken: isTaken)
    }

    /// A prefix that is a valid name, not reserved, and not taken, for a caller that knows that every `ns<n>` with
    /// n below `firstFreeNumber` is taken; moves it past the number given out, so that binding many namespaces
    /// does not search from `ns1` each time.
    static func freePrefix(hint: String?, firstFreeNumber: inout Int, isTaken: (String) -> Bool) -> String {
        if let hint, isUsablePrefix(hint), !isTaken(hint) { return hint }
        var number = firstFreeNumber
        while isTaken("ns\(number)") { number += 1 }
        firstFreeNumber = number + 1
        return "ns\(number)"
    }

    /// Prefixes starting with `xml` (any case) are reserved by Namespaces in XML.
    static func isUsablePrefix(_ prefix: String) -> Bool {
        XMLEscaping.isValidName(prefix) && !prefix.lowercased().hasPrefix("xml")
    }
}
