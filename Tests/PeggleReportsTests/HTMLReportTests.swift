import Foundation

#if canImport(FoundationXML)
import FoundationXML
#endif
import PeggleDifficulty
import PeggleDrawing
import PeggleGame
import PeggleLevel
import PeggleReports
import PeggleTestSupport
import Testing

/// An XML document as a tree: every element in document order with its parent.
final class XMLTree: NSObject, XMLParserDelegate {
    struct Node {
        var name: String
        var attributes: [String: String]
        var parent: Int?
        /// Text directly inside the element.
        var text = ""
    }

    var nodes: [Node] = []
    private var open: [Int] = []

    /// `xml` parsed; nil when it is not well-formed.
    static func parse(_ xml: String) -> XMLTree? {
        let tree = XMLTree()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = tree
        return parser.parse() ? tree : nil
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        nodes.append(Node(name: elementName, attributes: attributeDict, parent: open.last))
        open.append(nodes.count - 1)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        open.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let i = open.last { nodes[i].text += string }
    }

    func classes(_ i: Int) -> [String] { (nodes[i].attributes["class"] ?? "").split(separator: " ").map(String.init) }

    /// Indices of the elements named `name` (and of class `cls`), optionally only inside element `root`.
    func find(_ name: String? = nil, class cls: String? = nil, in root: Int? = nil) -> [Int] {
        nodes.indices.filter { i in
            (name == nil || nodes[i].name == name) && (cls == nil || classes(i).contains(cls!))
                && (root == nil || isInside(i, root!))
        }
    }

    func isInside(_ i: Int, _ root: Int) -> Bool {
        var p = nodes[i].parent
        while let q = p {
            if q == root { return true }
            p = nodes[q].parent
        }
        return false
    }

    /// All text inside element `i`, its descendants' too, in document order.
    func allText(_ i: Int) -> String {
        ([i] + nodes.indices.filter { isInside($0, i) }).map { nodes[$0].text }.joined()
    }
}

/// The page without its first line, which must be the HTML5 doctype.
func xmlBody(_ html: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> XMLTree {
    let lines = html.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    #expect(lines.first == "<!DOCTYPE html>", sourceLocation: sourceLocation)
    return try #require(XMLTree.parse(String(lines.last ?? "")), "not well-formed XML", sourceLocation: sourceLocation)
}

let trickyName = "<b>\"Tom & Jerry\"</b>"

/// Three levels: one with a picture and a full sweep, one with an awkward name and a picture, one
/// without a level file and without greedy episodes.
func reportFixture() -> (ratings: [LevelRating], levels: [String: Level]) {
    let eps = curve("Plain", sigma50: 0.035, perSigma: 6, every: 4) + random("Plain", wins: 3)
        + curve(trickyName, sigma50: 0.004, perSigma: 2, every: 8) + random(trickyName, wins: 0)
        + outcomes(level: "Unplayed by greedy", kind: TestKinds.linear, label: "linear(policy=a&b)", wins: 12, of: 20)
    let levels = ["hash-Plain": sampleLevel(name: "Plain"), "hash-" + trickyName: sampleLevel(name: trickyName)]
    return (DifficultyRater.rate(eps, options: RatingOptions(bands: true, kindOrder: TestKinds.reportOrder)), levels)
}

@Test func reportIsWellFormedWithOneSectionPerLevel() throws {
    let (ratings, levels) = reportFixture()
    let html = HTMLReport.render(ratings, levels: levels, facts: [("Generated", "2026-01-02"), ("Database", "runs.sqlite")],
                                 kinds: TestKinds.reportOrder)
    let doc = try xmlBody(html)
    let root = try #require(doc.nodes.first)
    #expect(root.name == "html")
    #expect(root.attributes["xmlns"] == "http://www.w3.org/1999/xhtml")
    #expect(doc.find("head").count == 1 && doc.find("body").count == 1 && doc.find("title").count >= 1)
    #expect(doc.find("style").count == 1)

    let sections = doc.find("section")
    #expect(sections.count == ratings.count)
    #expect(doc.find("section", class: "level") == sections)
    for (s, r) in zip(sections, ratings) {
        let heading = try #require(doc.find("h2", in: s).first)
        #expect(doc.allText(heading).contains(r.levelName))
        let svgs = doc.find("svg", in: s).filter { doc.nodes[$0].parent.map { doc.nodes[$0].name != "svg" } ?? true }
        // Picture (when the level is known), skill curve (when greedy played), bars.
        let expected = (levels[r.levelHash] == nil ? 0 : 1) + (r.skill == nil ? 0 : 1) + 1
        #expect(svgs.count == expected, "\(r.levelName)")
        #expect(!doc.find("svg", class: "agent-bars", in: s).isEmpty)
        #expect(doc.find("svg", class: "skill-curve", in: s).count == (r.skill == nil ? 0 : 1))
        for svg in svgs { #expect(doc.nodes[svg].attributes["xmlns"] == "http://www.w3.org/2000/svg") }
        // Every agent label has a row in the section's table (at its best aim).
        let table = try #require(doc.find("table", class: "agents", in: s).first)
        #expect(doc.find("tr", in: table).count == Set(r.agents.map(\.agentLabel)).count + 1)
        // Warnings are listed.
        let items = doc.find("ul", class: "warnings", in: s).flatMap { doc.find("li", in: $0) }.map { doc.allText($0) }
        #expect(items == r.warnings)
    }
    let unplayed = try #require(zip(sections, ratings).first { $0.1.levelName == "Unplayed by greedy" }?.0)
    #expect(doc.allText(unplayed).contains("No level file"))
    #expect(doc.allText(unplayed).contains("No skill curve"))

    // The summary: one row per level in rating order, agent columns random, greedy, linear.
    let summary = try #require(doc.find("table", class: "summary-table").first)
    let bodyRows = doc.find("tr", in: summary).filter { doc.find("td", in: $0).count > 0 }
    #expect(bodyRows.count == ratings.count)
    #expect(bodyRows.map { doc.allText(doc.find("a", in: $0)[0]) } == ratings.map(\.levelName))
    let headers = doc.find("th", in: summary).map { doc.allText($0) }
    #expect(headers.filter { ["random", "greedy", "linear(policy=a&b)"].contains($0) } == ["random", "greedy", "linear(policy=a&b)"])

    // Facts in order, self-contained, unique ids, internal links only.
    let facts = doc.find("table", class: "facts").flatMap { doc.find("tr", in: $0) }.map { doc.allText($0) }
    #expect(facts == ["Generated2026-01-02", "Databaseruns.sqlite"])
    #expect(doc.find("script").isEmpty && doc.find("link").isEmpty && doc.find("img").isEmpty)
    let ids = doc.nodes.compactMap { $0.attributes["id"] }
    #expect(Set(ids).count == ids.count)
    for node in doc.nodes {
        for key in ["href", "src", "xlink:href"] {
            if let v = node.attributes[key] { #expect(v.hasPrefix("#"), "\(key)=\(v)") }
        }
    }
    for link in doc.find("a") {
        let target = String(try #require(doc.nodes[link].attributes["href"]).dropFirst())
        #expect(ids.contains(target))
    }
    // Every clip-path reference names a clip path of the page.
    for node in doc.nodes {
        if let clip = node.attributes["clip-path"] {
            #expect(ids.contains(String(clip.dropFirst(5).dropLast())))
        }
    }
    #expect(!html.contains("<?xml"))
    // The only URLs are the XHTML and SVG namespaces.
    #expect(!html.replacingOccurrences(of: "http://www.w3.org/", with: "").contains("http"))
}

@Test func reportEscapesAwkwardNames() throws {
    let (ratings, levels) = reportFixture()
    let html = HTMLReport.render(ratings, levels: levels, facts: [("Note <i>", "a & b \"c\"")])
    #expect(!html.contains(trickyName))
    #expect(html.contains("&lt;b&gt;&quot;Tom &amp; Jerry&quot;&lt;/b&gt;"))
    let doc = try xmlBody(html)
    // The name is text everywhere, never markup: no element holds just "Tom & Jerry" in quotes.
    #expect(!doc.nodes.contains { $0.text == "\"Tom & Jerry\"" })
    let section = try #require(doc.find("section").first { doc.allText(doc.find("h2", in: $0)[0]).contains(trickyName) })
    let picture = try #require(doc.find("svg", in: section).first)
    #expect(doc.find("title", in: picture).contains { doc.nodes[$0].text == trickyName })
    #expect(doc.find("a").contains { doc.allText($0) == trickyName })
    #expect(doc.find("th").contains { doc.allText($0) == "Note <i>" })
    #expect(doc.find("td").contains { doc.allText($0) == "a & b \"c\"" })
    // Deterministic.
    #expect(HTMLReport.render(ratings, levels: levels, facts: [("Note <i>", "a & b \"c\"")]) == html)
}

@Test func emptyReportIsStillAPage() throws {
    let doc = try xmlBody(HTMLReport.render([], levels: [:], facts: []))
    #expect(doc.find("section").isEmpty)
    #expect(doc.find("table", class: "summary-table").count == 1)
}

// MARK: Charts

@Test func skillChartDrawsTheFitItsBandTheGamesAndSigma50() throws {
    let r = DifficultyRater.rate(curve("L", sigma50: 0.02, perSigma: 10, every: 6, label: "greedy <x>")
        + outcomes(level: "L", label: "greedy <x>", sigma: 0, wins: 5, of: 5), options: RatingOptions(bands: true))[0]
    let skill = try #require(r.skill)
    let doc = try #require(XMLTree.parse(SVGCharts.skillCurve(skill)))
    #expect(doc.nodes[0].name == "svg")
    let points = doc.find("g", class: "point")
    #expect(points.count == skill.points.count)
    let xs = points.compactMap { doc.find("circle", in: $0).first }.compactMap { doc.nodes[$0].attributes["cx"].flatMap(Double.init) }
    #expect(xs == xs.sorted() && Set(xs).count == xs.count)
    // Sigma 0 has its own column, left of the log axis.
    #expect(doc.find("g", class: "band-zero").count == 1)
    #expect(doc.find("polygon", class: "band").count == 1 && doc.find("polyline", class: "fit").count == 1)
    #expect(doc.find("line", class: "tier-edge").count == 3)
    // sigma50 sits on the 1/2 line between the games on either side of 0.02.
    guard case let .value(s, _, _) = skill.sigma50 else { Issue.record("\(skill.sigma50)"); return }
    let group = try #require(doc.find("g", class: "sigma50").first)
    let marker = try #require(doc.find("circle", in: group).first)
    let mx = try #require(doc.nodes[marker].attributes["cx"].flatMap(Double.init))
    let my = try #require(doc.nodes[marker].attributes["cy"].flatMap(Double.init))
    let below = skill.points.lastIndex { $0.sigma < s }!, above = skill.points.firstIndex { $0.sigma > s }!
    #expect(mx > xs[below] && mx < xs[above])
    let half = try #require(doc.find("line", class: "half").first)
    #expect(doc.nodes[half].attributes["y1"].flatMap(Double.init) == my)
    let label = try #require(doc.find("text", class: "sigma50-label").first)
    #expect(doc.nodes[label].text == "\u{3c3}50 " + SVGCharts.sigma50Text(skill.sigma50) + " rad")
    #expect(doc.find("title").contains { doc.nodes[$0].text.contains("greedy <x>") })
}

@Test func skillChartShowsBounds() throws {
    let below = try #require(DifficultyRater.rate(curve("L", sigma50: 0.0001), options: RatingOptions(bands: true))[0].skill)
    let doc = try #require(XMLTree.parse(SVGCharts.skillCurve(below)))
    #expect(doc.find("g", class: "sigma50").count == 1)
    #expect(doc.find("polygon", in: doc.find("g", class: "sigma50")[0]).count == 1)
    #expect(doc.nodes[try #require(doc.find("text", class: "sigma50-label").first)].text == "\u{3c3}50 < 0.001 rad")
    let empty = try #require(XMLTree.parse(SVGCharts.skillCurve(SkillCurve(agentLabel: "g", stats: []))))
    #expect(empty.find("g", class: "point").isEmpty && empty.find("g", class: "sigma50").isEmpty)
    #expect(SVGCharts.sigma50Text(.above(0.5, probability: 0.99)) == "> 0.5")
    #expect(SVGCharts.sigma50Text(.value(0.0123, low: 0.011, high: 0.0141)) == "0.012 (0.011\u{2013}0.014)")
}

@Test func barChartHasTwoBarsPerAgentRow() throws {
    let r = DifficultyRater.rate(outcomes(level: "L", sigma: 0, wins: 20, of: 20) + outcomes(level: "L", sigma: 0.04, wins: 5, of: 20)
        + random("L", wins: 10), options: RatingOptions(kindOrder: TestKinds.reportOrder))[0]
    let doc = try #require(XMLTree.parse(SVGCharts.agentBars(r.agents)))
    let rows = doc.find("g", class: "agent-row")
    #expect(rows.count == r.agents.count)
    let full = try #require(doc.find("rect", class: "win", in: rows[1]).first)  // greedy at 0: won all
    let half = try #require(doc.find("rect", class: "win", in: rows[0]).first)  // random: won half
    let wFull = try #require(doc.nodes[full].attributes["width"].flatMap(Double.init))
    let wHalf = try #require(doc.nodes[half].attributes["width"].flatMap(Double.init))
    #expect(wFull > 0 && abs(wHalf - wFull / 2) < 0.02)
    for row in rows { #expect(doc.find("rect", class: "orange", in: row).count == 1) }
    #expect(doc.nodes[rows[0]].attributes["data-agent"] == "random")
}
