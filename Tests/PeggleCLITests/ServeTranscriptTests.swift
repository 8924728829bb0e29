import Foundation
import PeggleTestSupport
import Testing

/// The serve protocol's replies to a fixed session (every command, the three observation
/// encodings, both info layouts, procedural levels, the pixels encoder, and one request for each
/// kind of refusal) were recorded once, from the binary before the serve code moved into its own
/// module; today's binary must answer them byte for byte the same (frames included). A reply that
/// changes on purpose is a protocol change: record the transcript again
/// (`peggle serve < Tests/Fixtures/serve/transcript.requests.jsonl > Tests/Fixtures/serve/transcript.replies`)
/// and say so in docs/protocol.md.
@Suite("peggle serve transcript")
struct ServeTranscriptTests {
    @Test("the recorded session replays byte for byte")
    func replay() throws {
        let requests = String(decoding: try Repository.data("Tests/Fixtures/serve/transcript.requests.jsonl"), as: UTF8.self)
        let recorded = Array(try Repository.data("Tests/Fixtures/serve/transcript.replies"))
        let r = try ServeCommandTests.rawOutput(requests)
        #expect(r.status == 0)
        let got = try ServeCommandTests.replies(r.bytes), want = try ServeCommandTests.replies(recorded)
        #expect(got.count == want.count)
        // Line by line first, so a difference names the reply it is in.
        let gotLines = Self.lines(r.bytes), wantLines = Self.lines(recorded)
        for (k, (g, w)) in zip(gotLines, wantLines).enumerated() where g != w {
            Issue.record("reply \(k) differs:\n  got  \(String(decoding: g.prefix(300), as: UTF8.self))\n  want \(String(decoding: w.prefix(300), as: UTF8.self))")
            break
        }
        #expect(r.bytes == recorded)
    }

    /// The reply lines with their frames, as byte strings.
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = [], i = 0
        while i < bytes.count, let nl = bytes[i...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(bytes[i..<nl])
            var n = 0
            if let r = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] { n = r["frame_bytes"] as? Int ?? 0 }
            out.append(Array(bytes[i..<min(bytes.count, nl + 1 + n)]))
            i = nl + 1 + n
        }
        return out
    }
}
