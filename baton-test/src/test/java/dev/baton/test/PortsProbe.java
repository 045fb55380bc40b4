package dev.baton.test;

/** Main class for {@link PortsTest}: prints, for each port given, whether another JVM holds it ("taken" or "free"). */
public final class PortsProbe {

    private PortsProbe() {
    }

    public static void main(String[] args) {
        StringBuilder answer = new StringBuilder();
        for (String port : args) {
            answer.append(Ports.lockedByAnotherJvm(Integer.parseInt(port)) ? "taken " : "free ");
        }
        System.out.println(answer.toString().strip());
    }
}
