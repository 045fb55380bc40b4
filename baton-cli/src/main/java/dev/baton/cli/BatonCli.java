package dev.baton.cli;

import dev.baton.BatonUnavailableException;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code baton}: the entry point of the command line (docs/cli.md). Parses the command line with picocli, runs one
 * command, and turns every failure into one line on stderr and an {@link ExitStatus}: no stack trace (unless
 * {@code BATON_DEBUG} is set), never a password.
 */
@Command(name = "baton", mixinStandardHelpOptions = true, versionProvider = BatonCli.Version.class,
        description = "Operate Baton's locks, semaphores, elections, latches and rate limiters in Redis: see who holds "
                + "what, free what is stuck, run a command under a lock or only on the elected host.",
        subcommands = {InspectCommand.class, ListCommand.class, UnlockCommand.class, LimiterCommand.class,
                ExecCommand.class, ElectCommand.class, WatchCommand.class, CommandLine.HelpCommand.class},
        footerHeading = "%nExit codes:%n", footer = "%s")
public final class BatonCli implements Runnable {

    @Spec
    CommandSpec spec;

    /** Without a command: the usage, and exit status 2. */
    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed");
    }

    /**
     * Runs {@code baton} and exits with its status.
     *
     * @param args the command line
     */
    public static void main(String[] args) {
        // Netty 4.1 (under Lettuce 6) reaches for sun.misc.Unsafe's memory access, which JDK 24 and later announce
        // with four WARNING lines on stderr at every start: noise in every command's output, and in front of its one
        // line of error. A command line gains nothing from Unsafe buffers; -Dio.netty.noUnsafe=false restores them.
        if (System.getProperty("io.netty.noUnsafe") == null) {
            System.setProperty("io.netty.noUnsafe", "true");
        }
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /**
     * Runs one command line.
     *
     * @param args the arguments
     * @param out  standard output
     * @param err  standard error
     * @return the exit status
     */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = commandLine();
        cli.setOut(out);
        cli.setErr(err);
        try {
            return cli.execute(args);
        } catch (Error e) { // picocli hands only exceptions to the handler; an error still gets one line
            err.println("baton: " + e);
            if (System.getenv("BATON_DEBUG") != null) {
                e.printStackTrace(err);
            }
            return ExitStatus.FAILURE.code();
        }
    }

    /**
     * The command line's parser, with its error handling: bad usage prints one line and where to find help (status
     * 2), a {@link CliFailure} its message and status, an unavailable Redis status 69, anything else status 1.
     *
     * @return the parser
     */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new BatonCli());
        String codes = Arrays.stream(ExitStatus.values())
                .map(s -> String.format("  %3d  %s", s.code(), s.meaning()))
                .collect(Collectors.joining("%n"));
        cli.getCommandSpec().usageMessage().footer(codes + "%n  exec and elect exit with the command's own code "
                + "when it ran to its end.");
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setParameterExceptionHandler((e, args) -> {
            PrintWriter err = e.getCommandLine().getErr();
            err.println("baton: " + e.getMessage());
            err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help'.");
            return ExitStatus.USAGE.code();
        });
        cli.setExecutionExceptionHandler((e, command, parsed) -> {
            PrintWriter err = command.getErr();
            ExitStatus status;
            String message;
            if (e instanceof CliFailure f) {
                status = f.status();
                message = f.getMessage();
            } else if (e instanceof BatonUnavailableException) {
                status = ExitStatus.UNAVAILABLE;
                message = "Redis unavailable: " + e.getMessage();
            } else if (e instanceof IllegalArgumentException || e instanceof UnsupportedOperationException) {
                status = ExitStatus.USAGE;
                message = e.getMessage();
            } else {
                status = ExitStatus.FAILURE;
                message = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            err.println("baton: " + message);
            if (System.getenv("BATON_DEBUG") != null) {
                e.printStackTrace(err);
            }
            return status.code();
        });
        return cli;
    }

    /** The version: the jar's. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = BatonCli.class.getPackage().getImplementationVersion();
            return new String[] {"baton " + (v == null ? "(development build)" : v)};
        }
    }
}
