/// Where a track's altitudes come from, as the altitudes themselves show it (`AltitudeNoise`).
public enum AltitudeKind: String, Sendable, Hashable, Codable {
    /// A barometric altimeter (most bike computers and many watches): centimetre steps, no scatter. Every
    /// rise of a metre or more is climb.
    case barometric
    /// Satellite altitude (phones, simple loggers): metres of scatter, smoothed and counted only past a 5 m
    /// turn back.
    case gps
}
