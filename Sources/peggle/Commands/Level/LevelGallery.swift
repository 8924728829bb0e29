import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleReports

/// `peggle level gallery FILES_OR_DIRS... -o gallery.html`: one page of thumbnails.
struct LevelGallery: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "Write self-contained HTML pages of level thumbnails.",
        discussion: "A folder stands for its *.json files in name order. Each card shows the board as `peggle render` "
            + "draws it, with the level's name, file, mode, power and pegs by kind. Every file must be a valid level. "
            + "Past --per-page levels the gallery is several pages linked to each other: -o's file is the first, "
            + "NAME-2.html and on the next ones. "
            + "Make a PNG of the page with e.g. `chromium --headless --screenshot=gallery.png "
            + "--window-size=1560,4000 gallery.html`.")

    @Argument(help: "Level files, or folders whose *.json files are levels.")
    var levels: [String]

    @Option(name: [.short, .long], help: "Output .html file.")
    var output: String

    @Option(help: "Heading of the page (default: the number of levels).")
    var title: String?

    @Option(help: "Levels a page holds at most (about 10 KB each).")
    var perPage = LevelGalleryPage.levelsPerPage

    func run() throws {
        guard output.hasSuffix(".html") else { throw UserError("-o: '\(output)' should end in .html") }
        guard (1...100_000).contains(perPage) else { throw UserError("--per-page: \(perPage) is outside 1...100000") }
        try Files.checkOutput(output)
        let files = try Files.levelFiles(levels)
        var entries: [LevelGalleryPage.Entry] = []
        var problems: [String] = []
        for f in files {
            do {
                entries.append(LevelGalleryPage.Entry(file: f, level: try Files.loadLevel(f)))
            } catch let e as UserError {
                problems += e.lines
            }
        }
        if !problems.isEmpty {
            throw UserError(lines: Array(problems.prefix(10)) + (problems.count > 10 ? ["... and \(problems.count - 10) more problems"] : []))
        }
        let heading = title ?? "\(entries.count) level\(entries.count == 1 ? "" : "s")"
        let count = max(1, (entries.count + perPage - 1) / perPage)
        let base = String(output.dropLast(".html".count))
        // Page k's file, and in links the name beside the first page (the pages share its folder).
        let path: @Sendable (Int) -> String = { k in k == 1 ? output : "\(base)-\(k).html" }
        let name: @Sendable (Int) -> String = { k in (path(k) as NSString).lastPathComponent }
        let all = entries.map(\.level)
        for k in 1...count {
            let slice = Array(entries[min(entries.count, (k - 1) * perPage)..<min(entries.count, k * perPage)])
            let pages = count > 1 ? LevelGalleryPage.Pages(page: k, count: count, all: all, fileName: name) : nil
            try Files.write(LevelGalleryPage().html(slice, title: heading, pages: pages), to: path(k))
        }
        // Pages an earlier, longer gallery of this name left beyond the last (only pages this
        // tool wrote: the generator's mark), so no link or stale page outlives its gallery.
        var k = count + 1
        while let old = FileManager.default.contents(atPath: path(k)) {
            guard String(decoding: old.prefix(400), as: UTF8.self).contains(LevelGalleryPage.generator) else { break }
            try? FileManager.default.removeItem(atPath: path(k))
            k += 1
        }
        printLine("wrote \(output): \(entries.count) level\(entries.count == 1 ? "" : "s")"
            + (count > 1 ? " on \(count) pages (\(name(2)) to \(name(count)) beside it)" : ""))
    }
}
