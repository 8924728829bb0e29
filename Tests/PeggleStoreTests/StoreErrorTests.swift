import PeggleStore
import Testing

@Suite struct StoreErrorTests {
    @Test func messagesNameTheFile() {
        #expect(StoreError.notADatabase(path: "x.sqlite").description.hasPrefix("x.sqlite: not an SQLite database"))
        let newer = StoreError.newerSchema(path: "db", unknown: ["v9"]).description
        #expect(newer.hasPrefix("db: written by a newer Peggle Gym") && newer.contains("v9"))
    }
}
