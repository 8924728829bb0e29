import PeggleDrawing
import PeggleGame
import PeggleLevel
import PeggleUtilities

/// One self-contained HTML page of level thumbnails, to look at a corpus at a glance: a summary
/// (how many levels, peg counts, modes, powers), then one card per level in the order given,
/// each with the board as `SVGRenderer` draws it (cropped to the board, without the side panel)
/// and a caption: name, file, mode, power, pegs by kind, blocks. Nothing is fetched from
/// elsewhere; the same levels give the same bytes.
public struct LevelGalleryPage: Sendable {
    /// A level and the file it came from (shown in its caption).
    public struct Entry: Sendable {
        public var file: String
        public var level: Level
        public init(file: String, level: Level) {
            self.file = file
            self.level = level
        }
    }

    public var rules: Rules
    /// Thumbnail width in CSS pixels (the height follows the board).
    public var thumbnailWidth: Int

    public init(rules: Rules = Rules(), thumbnailWidth: Int = 360) {
        self.rules = rules
        self.thumbnailWidth = thumbnailWidth
    }

    /// Where a page sits among the pages of one gallery: its number (from 1), how many there
    /// are, and each page's file name, for the links between them.
    public struct Pages: Sendable {
        public var page: Int
        public var count: Int
        public var fileName: @Sendable (Int) -> String
        /// The levels of every page together (the summary is the whole gallery's).
        public var all: [Level]

        public init(page: Int, count: Int, all: [Level], fileName: @escaping @Sendable (Int) -> String) {
            self.page = page
            self.count = count
            self.all = all
            self.fileName = fileName
        }
    }

    /// What a gallery's pages hold at most: about 10 KB a thumbnail, so a page stays near 2 MB,
    /// which a browser opens at once (10,000 levels on one page made a 99 MB one that none could).
    public static let levelsPerPage = 200

    /// Marks the pages this tool wrote, so a rerun with fewer pages removes only its own.
    public static let generator = "<meta name=\"generator\" content=\"peggle level gallery\">"

    /// The page for `entries`, headed by `title`; with `pages`, one of several, with links to
    /// the others and the whole gallery's summary.
    public func html(_ entries: [Entry], title: String, pages: Pages? = nil) -> String {
        let renderer = SVGRenderer(rules: rules)
        let w = rules.physics.boardWidth, h = rules.physics.boardHeight
        let height = Int((Double(thumbnailWidth) * h / w).rounded())
        var out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\(Self.generator)\n"
        out += "<title>\(SVGText.escape(title))</title>\n<style>\n"
        out += "body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;background:#f4f4f0;color:#222;margin:16px}\n"
        out += "h1{font-size:20px;margin:0 0 6px}.summary{font-size:13px;color:#444;margin:0 0 14px}\n"
        out += ".grid{display:flex;flex-wrap:wrap;gap:12px}\n"
        out += ".card{background:#fff;border:1px solid #ccc;border-radius:4px;padding:6px;width:\(thumbnailWidth)px}\n"
        out += ".card svg{display:block}.name{font-weight:bold;font-size:13px;margin:4px 0 2px}\n"
        out += ".meta{font-size:11px;color:#555;line-height:1.35}\n"
        out += "nav{font-size:13px;margin:0 0 12px}nav a,nav b{margin-right:8px}\n</style>\n</head>\n<body>\n"
        out += "<h1>\(SVGText.escape(title))</h1>\n"
        out += "<p class=\"summary\">\(SVGText.escape(summary(pages?.all ?? entries.map(\.level))))</p>\n"
        let nav = pages.map(Self.navigation) ?? ""
        out += nav
        out += "<div class=\"grid\">\n"
        for (k, e) in entries.enumerated() {
            let l = e.level
            out += "<div class=\"card\">\n"
            out += thumbnail(renderer.render(level: l), index: k, width: thumbnailWidth, height: height)
            out += "<div class=\"name\">\(SVGText.escape(l.name))</div>\n"
            out += "<div class=\"meta\">\(SVGText.escape(e.file))<br>\(SVGText.escape(SVGRenderer.modeText(l.mode)))"
            out += " \u{b7} power \(l.power.rawValue)<br>\(SVGText.escape(Self.kinds(l)))</div>\n"
            out += "</div>\n"
        }
        out += "</div>\n\(nav)</body>\n</html>\n"
        return out
    }

    /// "Page 3 of 50: previous, 1 ... 50, next": links to the first, previous, next and last
    /// pages and the ten around this one.
    static func navigation(_ p: Pages) -> String {
        func link(_ k: Int, _ text: String) -> String {
            k == p.page ? "<b>\(text)</b>" : "<a href=\"\(SVGText.escape(p.fileName(k)))\">\(text)</a>"
        }
        var parts = ["Page \(p.page) of \(p.count):"]
        if p.page > 1 { parts.append(link(p.page - 1, "previous")) }
        let near = max(1, p.page - 5)...min(p.count, p.page + 5)
        if near.lowerBound > 1 { parts.append(link(1, "1")) }
        if near.lowerBound > 2 { parts.append("\u{2026}") }
        parts += near.map { link($0, "\($0)") }
        if near.upperBound < p.count - 1 { parts.append("\u{2026}") }
        if near.upperBound < p.count { parts.append(link(p.count, "\(p.count)")) }
        if p.page < p.count { parts.append(link(p.page + 1, "next")) }
        return "<nav>\(parts.joined(separator: " "))</nav>\n"
    }

    /// "48 levels; pegs 31 to 112 (mean 68.5); classic 39, beat the score 6, dodge 3; power
    /// none 4, kaboom 15, spooky 14, multiball 15".
    func summary(_ levels: [Level]) -> String {
        guard !levels.isEmpty else { return "No levels." }
        let pegs = levels.map(\.pegs.count)
        let mean = Double(pegs.reduce(0, +)) / Double(pegs.count)
        var modes: [GameModeKind: Int] = [:]
        for l in levels { modes[l.mode.kind, default: 0] += 1 }
        let modeText = GameModeKind.allCases.compactMap { m in
            modes[m].map { "\(Self.replacing(m.rawValue, "_", " ")) \($0)" }
        }
        let powerText = Power.allCases.compactMap { p -> String? in
            let n = levels.filter { $0.power == p }.count
            return n > 0 ? "\(p.rawValue) \(n)" : nil
        }
        return "\(levels.count) level\(levels.count == 1 ? "" : "s"); pegs \(pegs.min()!) to \(pegs.max()!) "
            + "(mean \(DecimalText.fixed(mean, decimals: 1))); \(modeText.joined(separator: ", ")); "
            + "power \(powerText.joined(separator: ", "))"
    }

    /// "64 pegs: 14 orange, 2 green, 1 purple, 47 blue; 2 blocks".
    static func kinds(_ l: Level) -> String {
        let parts = PegKind.allCases.sorted { order($0) < order($1) }.compactMap { k -> String? in
            let n = l.count(of: k)
            return n > 0 ? "\(n) \(k.rawValue)" : nil
        }
        return "\(l.pegs.count) pegs: \(parts.joined(separator: ", ")); \(l.blocks.count) block\(l.blocks.count == 1 ? "" : "s")"
    }

    static func order(_ k: PegKind) -> Int {
        switch k { case .orange: 0; case .green: 1; case .purple: 2; case .zombie: 3; case .confusement: 4; case .blue: 5 }
    }

    /// `text` with every `target` replaced (standard library only).
    static func replacing(_ text: String, _ target: String, _ replacement: String) -> String {
        var out = ""
        var rest = text[...]
        while let r = rest.firstRange(of: target) {
            out += rest[..<r.lowerBound]
            out += replacement
            rest = rest[r.upperBound...]
        }
        return out + rest
    }

    /// The renderer's SVG inlined into the page: without its XML declaration, with its clip
    /// path's id made unique to this card, and cropped to the board (the side panel is left out
    /// of the view box) at `width` x `height` pixels.
    func thumbnail(_ svg: String, index: Int, width: Int, height: Int) -> String {
        var body = Substring(svg)
        if body.hasPrefix("<?xml"), let end = body.firstIndex(of: ">") {
            body = body[body.index(after: end)...].drop { $0 == "\n" }
        }
        var text = String(body)
        let id = Scene.clipId
        text = Self.replacing(Self.replacing(text, "id=\"\(id)\"", "id=\"\(id)-g\(index)\""),
                              "url(#\(id))", "url(#\(id)-g\(index))")
        // Replace the root element's size and view box (its first line).
        if let close = text.firstIndex(of: ">") {
            let bw = DecimalText.number(rules.physics.boardWidth), bh = DecimalText.number(rules.physics.boardHeight)
            let root = "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"\(width)\" height=\"\(height)\" "
                + "viewBox=\"0 0 \(bw) \(bh)\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\">"
            text = root + text[text.index(after: close)...]
        }
        return text
    }
}
