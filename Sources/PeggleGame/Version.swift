/// Version of the engine, reported by the tool and recorded with results.
public enum PeggleGym {
    public static let version = "0.1.0"
}
