/// An XML element kept as a tree, with its namespace, so that extensions bikeride does not interpret are
/// written back as they were read.
public struct XMLElementNode: Sendable, Hashable {
    /// The namespace URI, or the empty string for an element in no namespace.
    public var namespace: String
    public var localName: String
    /// The prefix the file used, a hint for writing (the writer may choose another if it clashes).
    public var prefix: String?
    public var attributes: [XMLAttribute]
    public var children: [XMLNode]

    public init(
        namespace: String, localName: String, prefix: String? = nil, attributes: [XMLAttribute] = [],
        children: [XMLNode] = []
    ) {
        self.namespace = namespace
        self.localName = localName
        self.prefix = prefix
        self.attributes = attributes
        self.children = children
    }

    /// Equal when the names (namespace and local name), attributes and children are: the prefix is only
    /// spelling, and two files that bind different prefixes to the same namespace say the same thing.
    public static func == (lhs: XMLElementNode, rhs: XMLElementNode) -> Bool {
        lhs.namespace == rhs.namespace && lhs.localName == rhs.localName && lhs.attributes == rhs.attributes
            && lhs.children == rhs.children
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(namespace)
        hasher.combine(localName)
        hasher.combine(attributes)
        hasher.combine(children)
    }

    /// The concatenated text of this element's direct text children.
    public var text: String {
        children.reduce(into: "") { result, child in
            if case .text(let text) = child { result += text }
        }
    }
}

/// An attribute of an extension element.
public struct XMLAttribute: Sendable, Hashable {
    /// The namespace URI, empty for an unprefixed attribute.
    public var namespace: String
    public var localName: String
    public var prefix: String?
    public var value: String

    /// Equal when namespace, local name and value are; the prefix is only spelling.
    public static func == (lhs: XMLAttribute, rhs: XMLAttribute) -> Bool {
        lhs.namespace == rhs.namespace && lhs.localName == rhs.localName && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(namespace)
        hasher.combine(localName)
        hasher.combine(value)
    }

    public init(namespace: String = "", localName: String, prefix: String? = nil, value: String) {
        self.namespace = namespace
        self.localName = localName
        self.prefix = prefix
        self.value = value
    }
}

/// A child of an extension element: an element or a run of text (mixed content is kept).
public indirect enum XMLNode: Sendable, Hashable {
    case element(XMLElementNode)
    case text(String)
}
