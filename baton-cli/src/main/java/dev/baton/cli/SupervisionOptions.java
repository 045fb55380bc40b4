package dev.baton.cli;

import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * How {@code exec} and {@code elect} look after the command they run: the watchdog lease that keeps their lock or
 * leadership, the grace between SIGTERM and SIGKILL when the command must stop, and whether to narrate on stderr.
 */
final class SupervisionOptions {

    @Option(names = "--lease", paramLabel = "DURATION", converter = DurationConverter.class, description = "The "
            + "watchdog lease of the lock or leadership: renewed every third of it while COMMAND runs, and how long "
            + "others wait if this machine dies. Default: 30s.")
    Duration lease;

    @Option(names = "--grace", paramLabel = "DURATION", converter = DurationConverter.class, description = "How long "
            + "COMMAND has to end after SIGTERM (lease or leadership lost, or SIGTERM/SIGINT passed on) before it and "
            + "its descendants get SIGKILL. Default: ${DEFAULT-VALUE}.", defaultValue = "10s")
    Duration grace;

    @Option(names = {"-v", "--verbose"}, description = "Say on stderr when the lock or leadership is won (with its "
            + "fencing token or epoch), when COMMAND ends, and when signals are passed on.")
    boolean verbose;
}
