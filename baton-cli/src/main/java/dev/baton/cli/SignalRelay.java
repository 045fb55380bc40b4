package dev.baton.cli;

import java.util.List;
import java.util.function.Consumer;
import sun.misc.Signal;

/**
 * Takes over the signals that ask {@code baton} to stop ({@code SIGTERM}, {@code SIGINT}, {@code SIGHUP}) and hands
 * each one to a command instead of letting the JVM exit: {@code exec} and {@code elect} forward them to the command
 * they run and end only once it has, {@code watch} ends its loop and exits 0.
 *
 * <p>Java has no supported API for this: the JVM's own handlers run the shutdown hooks and exit, which would leave a
 * child process running without the lock. {@code sun.misc.Signal} (module {@code jdk.unsupported}, present in every
 * JDK since 9 and reachable from a jar on the class path) replaces them. The handler runs on a thread the JVM starts
 * for each signal, so it must not block for long.
 */
final class SignalRelay {
    /** The signals taken over, by their names without {@code SIG}. */
    static final List<String> SIGNALS = List.of("TERM", "INT", "HUP");

    private SignalRelay() {
    }

    /**
     * Installs the handlers for {@link #SIGNALS}. There is no uninstall: the process ends when the command does.
     *
     * @param receiver told of each signal, with its name ({@code TERM}, {@code INT}, {@code HUP}), on a thread of its
     *                 own
     */
    static void install(Consumer<String> receiver) {
        for (String name : SIGNALS) {
            try {
                Signal.handle(new Signal(name), s -> receiver.accept(s.getName()));
            } catch (IllegalArgumentException unavailable) {
                // A signal this platform does not have, or one the JVM was told to leave alone (-Xrs): keep its
                // default, which ends the JVM as it would without baton.
            }
        }
    }

    /**
     * The number of a signal taken over, for the {@code 128 + n} exit status of a process ended by it.
     *
     * @param name {@code TERM}, {@code INT} or {@code HUP}
     * @return its number on Linux and the BSDs (15, 2, 1)
     */
    static int number(String name) {
        return switch (name) {
            case "TERM" -> 15;
            case "INT" -> 2;
            case "HUP" -> 1;
            default -> throw new IllegalArgumentException("not a signal baton takes over: " + name);
        };
    }
}
