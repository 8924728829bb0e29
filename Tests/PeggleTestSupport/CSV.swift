/// A strict RFC 4180 reader: records end in CRLF, fields are separated by commas, a quoted field
/// may hold commas, CR, LF and doubled quotes. Returns nil on anything else (a bare CR or LF
/// outside quotes, a quote inside an unquoted field, text after a closing quote, a missing final CRLF).
public func readCSV(_ text: String) -> [[String]]? {
    var records: [[String]] = []
    var record: [String] = []
    var field = ""
    var quoted = false       // inside a quoted field
    var wasQuoted = false    // the current field was quoted (and has been closed)
    var scalars = Array(text.unicodeScalars)[...]
    while let u = scalars.popFirst() {
        if quoted {
            if u == "\"" {
                if scalars.first == "\"" { scalars.removeFirst(); field.unicodeScalars.append("\"") } else { quoted = false }
            } else {
                field.unicodeScalars.append(u)
            }
            continue
        }
        switch u {
        case "\"":
            guard field.isEmpty && !wasQuoted else { return nil }
            quoted = true
            wasQuoted = true
        case ",":
            record.append(field); field = ""; wasQuoted = false
        case "\r":
            guard scalars.popFirst() == "\n" else { return nil }
            record.append(field); field = ""; wasQuoted = false
            records.append(record); record = []
        case "\n":
            return nil
        default:
            guard !wasQuoted else { return nil }
            field.unicodeScalars.append(u)
        }
    }
    guard !quoted && field.isEmpty && record.isEmpty else { return nil }
    return records
}
