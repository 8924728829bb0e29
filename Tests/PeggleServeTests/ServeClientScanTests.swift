import Foundation
import PeggleLab
import PeggleServe
import Testing

/// How `ServeClient` finds a reply's `frame_bytes` without decoding it twice: from the end of
/// the line, where the server writes it, or by a search when it is elsewhere.
@Suite struct ServeClientScanTests {
    static func frame(_ line: String) -> Int? { ServeClient.frameBytes(in: Array(line.utf8)[...]) }

    @Test func lastFieldAndElsewhere() {
        #expect(Self.frame(#"{"ok":true,"obs_bytes":8772,"frame_bytes":8772}"#) == 8772)
        #expect(Self.frame(#"{"ok":true,"frame_bytes":0}"#) == 0)
        // Not last: found by the search.
        #expect(Self.frame(#"{"frame_bytes":12,"ok":true}"#) == 12)
        #expect(Self.frame(#"{"ok":true, "frame_bytes":12 }"#) == 12)
        // None, and a key only inside a string value (escaped quotes) is not the field.
        #expect(Self.frame(#"{"ok":true,"obs_b64":"AAAA"}"#) == nil)
        #expect(Self.frame(#"{"ok":true,"level_name":"\"frame_bytes\":9"}"#) == nil)
        #expect(Self.frame("") == nil)
        #expect(Self.frame("}") == nil)
    }

    @Test func spanOfAStringValue() {
        let line = Array(#"{"ok":true,"obs_b64":"QUJD","x":1}"#.utf8)[...]
        let s = ServeClient.span(of: ServeClient.base64Key, in: line)
        #expect(s.map { String(decoding: line[$0.0..<$0.1], as: UTF8.self) } == "QUJD")
    }
}
