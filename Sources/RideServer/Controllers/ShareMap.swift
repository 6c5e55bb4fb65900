import Foundation
import RideKit

/// The map of the live and place share pages, without script: the base map's tiles as images under an SVG of the
/// path and the position (RideKit's `StaticMapLayout` puts them). With the offline tile set (`--tiles`) the tiles
/// come from this server; else from the standard map's tile server, which the viewer's browser asks (sending only
/// this server's origin, never the page's address). Where tiles do not load (the viewer is offline, or the tile
/// server is not reachable) the images show nothing and the plain drawing stays: the line on a grey background.
struct ShareMap: Sendable {
    /// `{z}/{x}/{y}` (and `{s}`, `{r}`) URL of the tiles; nil: the plain drawing only.
    var tileTemplate: String?
    var attribution: String

    static var width: Double { 640 }
    static var height: Double { 360 }

    /// The tiles of `configuration`: the offline set's (same origin) when there is one, else the standard map's.
    init(offlineTiles: Bool, standardTilesURL: String, attribution: String, offlineAttribution: String? = nil) {
        if offlineTiles {
            tileTemplate = "/tiles/{z}/{x}/{y}.png"
            self.attribution = offlineAttribution ?? ""
        } else {
            tileTemplate = standardTilesURL.isEmpty ? nil : standardTilesURL
            self.attribution = attribution
        }
    }

    init(tileTemplate: String?, attribution: String) {
        self.tileTemplate = tileTemplate
        self.attribution = attribution
    }

    /// What the page's CSP must add to `img-src` for the tiles: the tile server's origin (`https://*.host` where the
    /// template picks a subdomain), or nothing for this server's own tiles.
    var imageSource: String? {
        guard let template = tileTemplate, template.hasPrefix("http") else { return nil }
        let sample = template.replacingOccurrences(of: "{s}", with: "a").replacingOccurrences(of: "{z}", with: "0")
            .replacingOccurrences(of: "{x}", with: "0").replacingOccurrences(of: "{y}", with: "0").replacingOccurrences(of: "{r}", with: "")
        guard let url = URL(string: sample), let scheme = url.scheme, let host = url.host(percentEncoded: false) else { return nil }
        let port = url.port.map { ":\($0)" } ?? ""
        let shownHost = template.contains("://{s}.") ? "*." + host.split(separator: ".", maxSplits: 1).last.map(String.init)! : host
        return scheme + "://" + shownHost + port
    }

    /// The map as HTML: `segments` drawn as red lines (a gap stays a gap), `dot` as the position, `label` the map's
    /// accessible name. Nothing when there is nothing to show.
    func html(segments: [[Coordinate]], dot: Coordinate?, dotColour: String = "#c62828", label: String) -> String {
        let all = segments.flatMap { $0 } + (dot.map { [$0] } ?? [])
        guard !all.isEmpty else { return "" }
        let width = Self.width, height = Self.height
        let layout = StaticMapLayout(coordinates: all, width: width, height: height)
        func percent(_ value: Double, of whole: Double) -> String { String(format: "%.4f%%", value / whole * 100) }
        var parts: [String] = []
        parts.append("<div class=\"map\" style=\"position:relative;overflow:hidden;width:100%;aspect-ratio:\(Int(width))/\(Int(height));"
            + "background:#f3f5f7;border-radius:8px\">")
        if let template = tileTemplate {
            for (index, tile) in layout.tiles.enumerated() {
                let url = template.replacingOccurrences(of: "{s}", with: ["a", "b", "c"][index % 3]).replacingOccurrences(of: "{r}", with: "")
                    .replacingOccurrences(of: "{z}", with: String(tile.zoom)).replacingOccurrences(of: "{x}", with: String(tile.x))
                    .replacingOccurrences(of: "{y}", with: String(tile.y))
                // A tile that does not load is covered by its `::after` (the share pages' style: browsers draw it only
                // for a broken image), so the plain drawing shows instead of broken-image signs.
                parts.append("<img class=\"tile\" src=\"\(SharesController<RideRequestContext>.escaped(url))\" alt=\"\" referrerpolicy=\"origin\" "
                    + "loading=\"eager\" style=\"position:absolute;left:\(percent(tile.left, of: width));top:\(percent(tile.top, of: height));"
                    + "width:\(percent(StaticMapLayout.tileSizePixels, of: width));height:\(percent(StaticMapLayout.tileSizePixels, of: height));"
                    + "max-width:none\">")
            }
        }
        func point(_ c: Coordinate) -> String {
            let p = layout.pixel(of: c)
            return String(format: "%.1f,%.1f", p.x, p.y)
        }
        var svg = "<svg role=\"img\" aria-label=\"\(SharesController<RideRequestContext>.escaped(label))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" "
            + "style=\"position:absolute;left:0;top:0;width:100%;height:100%\">"
        for segment in segments where segment.count > 1 {
            svg += "<polyline points=\"\(segment.map(point).joined(separator: " "))\" fill=\"none\" stroke=\"#c62828\" stroke-width=\"4\" "
                + "stroke-linejoin=\"round\" stroke-linecap=\"round\"/>"
        }
        if let dot {
            let p = layout.pixel(of: dot)
            svg += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"8\" ", p.x, p.y) + "fill=\"\(dotColour)\" stroke=\"#fff\" stroke-width=\"3\"/>"
        }
        svg += "</svg>"
        parts.append(svg)
        parts.append("</div>")
        if tileTemplate != nil, !attribution.isEmpty {
            parts.append("<p class=\"attribution\" style=\"font-size:.75rem;color:#555;margin:.2rem 0 0\">Map: \(SharesController<RideRequestContext>.escaped(attribution))</p>")
        }
        return parts.joined()
    }
}
