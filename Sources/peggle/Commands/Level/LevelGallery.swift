import ArgumentParser
import Foundation
import PeggleCommandLine
import PeggleGame
import PeggleReports

/// `peggle level gallery FILES_OR_DIRS... -o gallery.html`: one page of thumbnails.
struct LevelGallery: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gallery",
        abstract: "Write one self-contained HTML page of level thumbnails.",
        discussion: "A folder stands for its *.json files in name order. Each card shows the board as `peggle render` "
            + "draws it, with the level's name, file, mode, power and pegs by kind. Every file must be a valid level. "
            + "Make a PNG of the page with e.g. `chromium --headless --screenshot=gallery.png "
            + "--window-size=1560,4000 gallery.html`.")

    @Argument(help: "Level files, or folders whose *.json files are levels.")
    var levels: [String]

    @Option(name: [.short, .long], help: "Output .html file.")
    var output: String

    @Option(help: "Heading of the page (default: the number of levels).")
    var title: String?

    func run() throws {
        guard output.hasSuffix(".html") else { throw UserError("-o: '\(output)' should end in .html") }
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
        let page = LevelGalleryPage().html(entries, title: title ?? "\(entries.count) level\(entries.count == 1 ? "" : "s")")
        try Files.write(page, to: output)
        printLine("wrote \(output): \(entries.count) level\(entries.count == 1 ? "" : "s")")
    }
}
