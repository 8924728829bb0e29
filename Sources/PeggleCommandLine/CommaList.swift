import ArgumentParser
import Foundation

/// Why a text is not an element of a `CommaList`: a phrase about the text, e.g. "'x' is not a number".
package struct ElementRefusal: Error, Equatable {
    package var reason: String

    package init(reason: String) { self.reason = reason }
}

/// A type whose values can be elements of a `CommaList`.
package protocol ListElement: ExpressibleByArgument, Sendable {
    /// The value `text` (already trimmed) names, or why it names none.
    static func element(_ text: String) throws(ElementRefusal) -> Self
}

/// A comma-separated option value, "a,b,c": split once when the command line is read, each
/// element trimmed of spaces and parsed as `Element`. argument-parser's `init?(argument:)` can
/// only say that a whole value is wrong, so a list always parses and keeps the first bad
/// element; the command takes its elements with `values(_:)`, which refuses that element by
/// position, text and reason as an `error: ...` line with exit code 2, like every other
/// refusal of a command's `run()`.
package struct CommaList<Element: ListElement>: ExpressibleByArgument, Sendable {
    /// One element: its trimmed text and its value, or why it has none.
    package struct Item: Sendable {
        package var text: String
        /// Nothing at all between its commas (not even spaces).
        package var isEmpty: Bool
        package var value: Result<Element, ElementRefusal>
    }

    /// The value as given on the command line (what messages quote).
    package let text: String
    package let items: [Item]

    package init?(argument: String) {
        text = argument
        items = argument.split(separator: ",", omittingEmptySubsequences: false).map { part in
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            return Item(text: trimmed, isEmpty: part.isEmpty, value: Result { () throws(ElementRefusal) in try Element.element(trimmed) })
        }
    }

    /// A list of known values (an option's default).
    package init(_ values: [Element]) {
        text = values.map(\.defaultValueDescription).joined(separator: ",")
        items = values.map { Item(text: $0.defaultValueDescription, isEmpty: false, value: .success($0)) }
    }

    /// How the help shows a default: the list as it would be typed.
    package var defaultValueDescription: String { text }

    /// The elements in order. `skippingEmpty` leaves out elements with nothing between their
    /// commas ("csv,,html"). An element that did not parse throws "OPTION: " followed by
    /// `message(position, text, reason)` (position 1-based, counting every element).
    package func values(_ option: String, skippingEmpty: Bool = false,
                message: (Int, String, String) -> String = Self.defaultMessage) throws -> [Element] {
        try map(option, skippingEmpty: skippingEmpty, message: message) { $2 }
    }

    /// `transform(position, text, value)` of each element in order, so a command's own checks
    /// (ranges, files) refuse elements in the order they were given, as parsing does.
    package func map<T>(_ option: String, skippingEmpty: Bool = false,
                message: (Int, String, String) -> String = Self.defaultMessage,
                _ transform: (Int, String, Element) throws -> T) throws -> [T] {
        try items.enumerated().compactMap { k, item in
            if skippingEmpty && item.isEmpty { return nil }
            switch item.value {
            case let .success(v): return try transform(k + 1, item.text, v)
            case let .failure(e): throw UserError("\(option): " + message(k + 1, item.text, e.reason))
            }
        }
    }

    package static func defaultMessage(_ position: Int, _ text: String, _ reason: String) -> String {
        "element \(position): \(reason)"
    }
}

extension Double: ListElement {
    package static func element(_ text: String) throws(ElementRefusal) -> Double {
        // NaN and infinities parse; the command says whether it takes them.
        guard !text.isEmpty, let v = Double(text) else { throw ElementRefusal(reason: "'\(text)' is not a number") }
        return v
    }
}

extension Int: ListElement {
    package static func element(_ text: String) throws(ElementRefusal) -> Int {
        guard let v = Int(text) else { throw ElementRefusal(reason: "'\(text)' is not a whole number") }
        return v
    }
}

extension String: ListElement {
    package static func element(_ text: String) throws(ElementRefusal) -> String { text }
}

extension ListElement where Self: CaseIterable & RawRepresentable, RawValue == String {
    package static func element(_ text: String) throws(ElementRefusal) -> Self {
        guard let v = Self(rawValue: text) else {
            throw ElementRefusal(reason: "'\(text)' is not one of: " + allCases.map(\.rawValue).joined(separator: ", "))
        }
        return v
    }
}
