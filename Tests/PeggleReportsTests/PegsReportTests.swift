import PeggleDifficulty
import PeggleDrawing
import PeggleGame
import PeggleLevel
import PeggleReports
import PeggleTestSupport
import PeggleUtilities
import Testing

/// Rates for the five orange pegs of `sampleLevel` (the last a brick): the kth is hit in 4 - k of
/// 5 games and left in k of the 4 lost ones.
func samplePegRates(_ name: String = "Plain", hash: String = "hash-Plain") -> LevelPegRates {
    let level = sampleLevel(name: name)
    let oranges = level.pegs.indices.filter { level.pegs[$0].kind == .orange }
    let pegs = oranges.enumerated().map { k, i in
        PegRate(pegID: level.pegs[i].id, index: i, x: level.pegs[i].center.x, y: level.pegs[i].center.y, hits: 4 - k,
                lostWith: k, hitRate: Double(4 - k) / 5, lostWithRate: Double(k) / 4)
    }
    return LevelPegRates(levelHash: hash, levelName: name, agentLabel: "greedy", window: 0.0175...0.07, games: 5,
                         gamesLost: 4, unreplayable: 0, firstUnreplayable: nil, pegs: pegs)
}

@Test("pegs.csv: the columns, one record per orange peg, empty rates when nothing was counted")
func pegsCSVIsPinned() throws {
    var awkward = samplePegRates("A, \"b\"", hash: "h2")
    awkward.pegs = [PegRate(pegID: 7, index: 3, x: 12.3456, y: 0.5, hits: 0, lostWith: 0, hitRate: nil, lostWithRate: nil)]
    awkward.window = nil
    awkward.games = 0
    awkward.gamesLost = 0
    let csv = CSVReport.pegs([samplePegRates(), awkward])
    #expect(csv == """
        level,level_hash,peg_id,x,y,hit_rate,lost_with_rate,games,games_lost,sigma_low,sigma_high\r
        Plain,hash-Plain,8,380,300,0.8,0,5,4,0.0175,0.07\r
        Plain,hash-Plain,10,460,300,0.6,0.25,5,4,0.0175,0.07\r
        Plain,hash-Plain,18,300,200,0.4,0.5,5,4,0.0175,0.07\r
        Plain,hash-Plain,20,760,100,0.2,0.75,5,4,0.0175,0.07\r
        Plain,hash-Plain,24,470,440,0,1,5,4,0.0175,0.07\r
        "A, ""b\""",h2,7,12.35,0.5,,,0,0,,\r

        """)
    #expect(readCSV(csv)?.map(\.count) == Array(repeating: CSVReport.pegsHeader.count, count: 7))
}

@Test("the heatmap: a ring per orange peg coloured by its lost-with rate, titled with both rates, and a legend; nothing else changes")
func reportDrawsTheHeatmap() throws {
    let (ratings, levels) = reportFixture()
    let rates = samplePegRates()
    let plain = HTMLReport.render(ratings, levels: levels, facts: [])
    let html = HTMLReport.render(ratings, levels: levels, facts: [], pegRates: [rates.levelHash: rates])
    let doc = try xmlBody(html)
    let rings = doc.find(class: "peg-ring")
    #expect(rings.map { doc.nodes[$0].attributes["data-peg"] } == rates.pegs.map { String($0.index) })
    #expect(rings.map { doc.nodes[$0].attributes["stroke"] } == ["#2c7bb6", "#96bdbb", "#ffffbf", "#eb8c6e", "#d7191c"])
    // The round pegs get circles, the brick a polygon.
    #expect(rings.map { doc.nodes[$0].name } == ["circle", "circle", "circle", "circle", "polygon"])
    #expect(rings.map { doc.allText($0) }.dropLast().last == "peg 20: left in 75% of 4 lost games; hit in 20% of 5 games")
    #expect(rings.map { doc.allText($0) }.last == "peg 24: left in 100% of 4 lost games; hit in 0% of 5 games")
    // Each ring circles its peg.
    for (ring, p) in zip(rings.dropLast(), rates.pegs) {
        #expect(doc.nodes[ring].attributes["cx"] == DecimalText.number(p.x) && doc.nodes[ring].attributes["r"] == "16.5")
    }
    let legend = try #require(doc.find("figcaption", class: "heat-legend").first)
    #expect(doc.allText(legend).contains("(4 lost of the skill agent's 5 games at \u{3c3} 0.0175\u{2013}0.07 rad, within a factor 2 of \u{3c3}50)"))
    #expect(doc.find("rect", in: legend).count == 11)
    // Without the rings and the legend, the page is the page without rates.
    let ringsStart = try #require(html.range(of: "<g class=\"peg-rings\""))
    let ringsEnd = try #require(html[ringsStart.lowerBound...].range(of: "</g>\n"))
    var stripped = html
    stripped.removeSubrange(ringsStart.lowerBound..<ringsEnd.upperBound)
    let captionStart = try #require(stripped.range(of: "<figcaption class=\"heat-legend\">"))
    let captionEnd = try #require(stripped[captionStart.lowerBound...].range(of: "</figcaption>\n"))
    stripped.removeSubrange(captionStart.lowerBound..<captionEnd.upperBound)
    #expect(stripped == plain)
}

@Test("no lost game near sigma50: no rings, and the legend says why")
func reportWithoutLostGames() throws {
    let (ratings, levels) = reportFixture()
    var rates = samplePegRates()
    rates.gamesLost = 0
    rates.unreplayable = 2
    rates.firstUnreplayable = "seed 4 at sigma 0.02: shot 1 replays with another hits"
    for i in rates.pegs.indices { rates.pegs[i].lostWithRate = nil }
    let doc = try xmlBody(HTMLReport.render(ratings, levels: levels, facts: [], pegRates: [rates.levelHash: rates]))
    #expect(doc.find(class: "peg-ring").isEmpty)
    let legend = try #require(doc.find("figcaption", class: "heat-legend").first)
    #expect(doc.allText(legend) == "No heatmap: the skill agent lost none of its 5 games at \u{3c3} 0.0175\u{2013}0.07 rad. "
        + "2 games left out: seed 4 at sigma 0.02: shot 1 replays with another hits (another engine played them).")
}
