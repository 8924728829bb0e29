import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleServe

/// One measurement of a benchmark, typed. `columns` are what `--csv` writes, in declaration
/// order; `extra` holds the rest of the `--json` line. Both are plain structs, so a row without a
/// column does not compile, and the CSV header is derived from the same declaration as the values.
/// Field names are written in snake case (`stepsPerS` is the column `steps_per_s`). Columns are
/// never optional (every CSV line has every column); an optional extra field that is nil is left
/// out of the JSON line.
protocol BenchRow {
    associatedtype Columns: Encodable
    associatedtype Extra: Encodable
    var columns: Columns { get }
    var extra: Extra { get }
}

/// What every benchmark writes besides its lines: one JSON object per row, a CSV file.
struct BenchOutputOptions: ParsableArguments {
    @Option(help: "Also write one CSV row per measurement to this file.")
    var csv: String?

    @Flag(help: "Print one JSON object per measurement.")
    var json = false
}

/// The one writer of every benchmark's rows: each row as it is measured (a JSON line, or the
/// benchmark's own sentence), and at the end the CSV file. The CSV's path is checked before the
/// work starts, so a run of minutes never ends in "cannot be written".
struct BenchOutput<Row: BenchRow> {
    let options: BenchOutputOptions
    private(set) var rows: [Row] = []

    init(_ options: BenchOutputOptions) throws {
        self.options = options
        if let csv = options.csv {
            do { try Files.checkOutput(csv) } catch let e as UserError { throw UserError(lines: e.lines.map { "--csv: " + $0 }) }
        }
    }

    /// Prints `row` (its JSON object with --json, else `text`) and keeps it for the CSV.
    mutating func emit(_ row: Row, text: @autoclosure () -> String) throws {
        rows.append(row)
        if options.json {
            printLine(try JSON.text(try Self.object(row)))
        } else {
            printLine(text())
        }
    }

    /// Writes the CSV, if asked for.
    func finish() throws {
        guard let csv = options.csv else { return }
        try Files.write(try Self.csv(rows), to: csv)
    }

    /// The JSON object of a row: its columns and its extra fields (keys sorted when written).
    static func object(_ row: Row) throws -> [String: Any] {
        var object: [String: Any] = [:]
        for (key, value) in try RowFields.of(row.columns) + RowFields.of(row.extra) {
            // Two fields of one name would make the JSON line keep one of them silently.
            guard object.updateValue(value, forKey: key) == nil else {
                throw UserError("\(Row.self): the field \(key) is declared twice (a bug)")
            }
        }
        return object
    }

    /// The CSV text: the header (the columns' names, from the first row), then one line per row,
    /// each value as Swift prints it (a Double keeps its ".0", as the benchmarks' CSV always had).
    /// No column holds a comma or a quote: they are numbers and names of modes and distributions.
    static func csv(_ rows: [Row]) throws -> String {
        let fields = try rows.map { try RowFields.of($0.columns) }
        let header = fields.first.map { $0.map(\.key) } ?? []
        let lines = fields.map { $0.map { "\($0.value)" }.joined(separator: ",") }
        return ([header.joined(separator: ",")] + lines).joined(separator: "\n") + "\n"
    }
}

/// The fields of a struct of plain values, by encoding it: keys in declaration order converted to
/// snake case, values as they are (numbers, strings, and lists and dictionaries of them), which
/// `JSONSerialization` writes exactly as the dictionaries the benchmarks built before typed rows,
/// and the CSV prints as Swift does. An optional field that is nil is left out, as the old rows
/// left the key out.
enum RowFields {
    static func of<T: Encodable>(_ value: T) throws -> [(key: String, value: Any)] {
        let sink = Sink()
        try value.encode(to: sink)
        return sink.fields
    }

    /// `stepsPerS` -> `steps_per_s` (Foundation's `convertToSnakeCase` for names without acronyms).
    static func snakeCase(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
        return out
    }

    /// Rows are structs of named fields (`BenchRow`'s two parts); the other shapes an `Encoder`
    /// can be asked for never occur, and `BenchRowTests` encodes every row type.
    fileprivate static let notARow = "a benchmark row is a struct of numbers, strings and lists of them"

    private final class Sink: Encoder {
        var fields: [(key: String, value: Any)] = []
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(Fields<Key>(sink: self))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { preconditionFailure(RowFields.notARow) }
        func singleValueContainer() -> any SingleValueEncodingContainer { preconditionFailure(RowFields.notARow) }
    }

    private struct Fields<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let sink: Sink
        var codingPath: [any CodingKey] { [] }

        func put(_ key: Key, _ value: Any) {
            sink.fields.append((RowFields.snakeCase(key.stringValue), value))
        }

        mutating func encodeNil(forKey key: Key) throws {}
        mutating func encode(_ value: Bool, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: String, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: Double, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: Float, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: Int, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { put(key, value) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { put(key, value) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            // Lists and dictionaries of JSON values are JSON values as they are.
            guard JSONSerialization.isValidJSONObject([value]) else {
                throw EncodingError.invalidValue(value, .init(codingPath: [key], debugDescription: RowFields.notARow))
            }
            put(key, value)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type,
                                                           forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            preconditionFailure(RowFields.notARow)
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { preconditionFailure(RowFields.notARow) }
        mutating func superEncoder() -> any Encoder { preconditionFailure(RowFields.notARow) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { preconditionFailure(RowFields.notARow) }
    }
}
