package dev.baton.cli;

import dev.baton.Baton;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that talks to Redis: the connection and output options every such command takes, and the connected
 * {@link Baton} it runs with, closed when it returns. Subclasses check their own arguments first (before any
 * connection, so that bad usage never waits for Redis) and then do their work in {@link #run(Baton, PrintWriter)}.
 */
abstract class ConnectedCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection;

    @Mixin
    OutputOptions output;

    @Spec
    CommandSpec spec;

    @Override
    public final Integer call() {
        check();
        try (Baton baton = connection.connect(spec.commandLine().getErr(), null)) {
            return run(baton, spec.commandLine().getOut());
        }
    }

    /**
     * Checks the command's own arguments before any Redis call.
     *
     * @throws CliFailure with {@link ExitStatus#USAGE} if one is wrong
     */
    void check() {
    }

    /**
     * The command's work.
     *
     * @param baton connected to the Redis the options name
     * @param out   standard output
     * @return the exit status
     */
    abstract int run(Baton baton, PrintWriter out);
}
