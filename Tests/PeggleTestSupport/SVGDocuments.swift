import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PeggleLevel
import PegglePhysics

// A sample level with every kind of object, and SVG documents parsed for the drawing and report tests.

/// A small valid classic level: a wall of blue pegs no ball can slip through (so every shot lights
/// something), special pegs, two bricks and two blocks (one springy).
public func sampleLevel(name: String = "Sample", power: Power = .none) -> Level {
    var pegs: [Peg] = []
    var id = 1
    func add(_ kind: PegKind, _ x: Double, _ y: Double, _ shape: PegShape = .circle(radius: 12)) {
        pegs.append(Peg(id: id, kind: kind, center: Vec2(x, y), shape: shape))
        id += 1
    }
    // Centres 40 apart, radius 12: gaps of 16 are narrower than a ball (diameter 20).
    for x in stride(from: 100.0, through: 700.0, by: 40.0) { add(x == 380 || x == 460 ? .orange : .blue, x, 300) }
    add(.green, 400, 120)
    add(.orange, 300, 200)
    add(.purple, 500, 200)
    add(.orange, 760, 100)  // out of the way, so one lucky shot does not win the game
    add(.zombie, 250, 380)
    add(.confusement, 550, 380)
    add(.blue, 330, 440, .brick(width: 40, height: 12, rotation: 0.5))
    add(.orange, 470, 440, .brick(width: 40, height: 12, rotation: -0.5))
    let blocks = [
        Block(id: 100, shape: .rectangle, center: Vec2(150, 480), width: 120, height: 16, rotation: 0.3),
        Block(id: 101, shape: .triangle, center: Vec2(650, 480), width: 80, height: 40, springiness: 1),
    ]
    return Level(name: name, mode: .classic(balls: 10), power: power, pegs: pegs, blocks: blocks)
}

/// A parsed SVG document: every element in document order, with its attributes and text.
public final class ParsedSVG: NSObject, XMLParserDelegate {
    public struct Element {
        public var name: String
        public var attributes: [String: String]
        public var text = ""

        public var classes: [String] { (attributes["class"] ?? "").split(separator: " ").map(String.init) }
        public func number(_ key: String) -> Double? { attributes[key].flatMap(Double.init) }
        /// The `points` attribute as vectors.
        public var points: [Vec2] {
            (attributes["points"] ?? "").split(separator: " ").compactMap { pair in
                let xy = pair.split(separator: ",").compactMap { Double($0) }
                return xy.count == 2 ? Vec2(xy[0], xy[1]) : nil
            }
        }
    }

    public var elements: [Element] = []
    private var open: [Int] = []

    /// Parses `svg`; nil if it is not well-formed XML.
    public static func parse(_ svg: String) -> ParsedSVG? {
        let doc = ParsedSVG()
        let parser = XMLParser(data: Data(svg.utf8))
        parser.delegate = doc
        return parser.parse() ? doc : nil
    }

    public func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        elements.append(Element(name: elementName, attributes: attributeDict))
        open.append(elements.count - 1)
    }

    public func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        open.removeLast()
    }

    public func parser(_ parser: XMLParser, foundCharacters string: String) {
        if let i = open.last { elements[i].text += string }
    }

    public func with(class name: String) -> [Element] { elements.filter { $0.classes.contains(name) } }
    public var root: Element? { elements.first }
}

/// Why `parsed` refused a document.
public struct NotWellFormedXML: Error, CustomStringConvertible {
    public var description: String { "not well-formed XML" }
}

/// `svg` parsed, or the error that fails the test.
public func parsed(_ svg: String) throws -> ParsedSVG {
    guard let doc = ParsedSVG.parse(svg) else { throw NotWellFormedXML() }
    return doc
}
