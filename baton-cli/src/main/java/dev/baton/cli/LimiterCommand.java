package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.BatonAdmin;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton limiter}: a rate limiter's state ({@code inspect}) and its reset ({@code reset}), read from Redis
 * without the limiter's configuration (each limit's state carries its permits and period).
 */
@Command(name = "limiter", mixinStandardHelpOptions = true,
        description = "Inspect or reset a rate limiter.",
        subcommands = {LimiterCommand.Inspect.class, LimiterCommand.Reset.class})
final class LimiterCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "limiter needs a command: inspect or reset");
    }

    /** {@code baton limiter inspect NAME}. */
    @Command(name = "inspect", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Show each limit of rate limiter NAME that has counted something: algorithm, permits per "
                    + "period, used, remaining and when it is full again. Idle limits (full) have no state and are "
                    + "not shown.", "Limits are found among the first 32 positions of the limiter's list."})
    static final class Inspect extends ConnectedCommand {
        @Parameters(paramLabel = "NAME", description = "The rate limiter's name.")
        String name;

        @Override
        int run(Baton baton, PrintWriter out) {
            List<BatonAdmin.LimitState> limits = baton.admin().rateLimiter(name);
            if (output.json()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", name);
                m.put("namespace", connection.namespace());
                m.put("limits", limits.stream().map(InspectCommand::json).toList());
                output.printJson(out, m);
            } else if (limits.isEmpty()) {
                out.println("rate limiter '" + name + "' has counted nothing that still counts: every limit is "
                        + "full");
            } else {
                out.println(output.bold("rate limiter '" + name + "'"));
                RateLimitTable.of(limits).print(out, output);
            }
            return ExitStatus.OK.code();
        }
    }

    /** {@code baton limiter reset NAME}. */
    @Command(name = "reset", mixinStandardHelpOptions = true, sortOptions = false,
            description = {"Forget everything rate limiter NAME has counted: every limit is full again at once, for "
                    + "every process. Shows the state and asks on a terminal (--yes to skip)."})
    static final class Reset extends ConnectedCommand {
        @Parameters(paramLabel = "NAME", description = "The rate limiter's name.")
        String name;

        @Option(names = {"-y", "--yes"}, description = "Do not ask for confirmation.")
        boolean yes;

        @Override
        int run(Baton baton, PrintWriter out) {
            List<BatonAdmin.LimitState> limits = baton.admin().rateLimiter(name);
            if (limits.isEmpty()) {
                if (output.json()) {
                    output.printJson(out, result(0));
                } else {
                    out.println("rate limiter '" + name + "' is idle: nothing to reset");
                }
                return ExitStatus.OK.code();
            }
            if (!output.json()) {
                out.println(output.bold("rate limiter '" + name + "'"));
                RateLimitTable.of(limits).print(out, output);
            }
            Confirmation.ask(yes, "Reset every limit of '" + name + "'?", out);
            int reset = baton.admin().resetRateLimiter(name);
            if (output.json()) {
                output.printJson(out, result(reset));
            } else {
                out.println("reset " + reset + (reset == 1 ? " limit" : " limits") + " of rate limiter '" + name
                        + "': every limit is full again");
            }
            return ExitStatus.OK.code();
        }

        private Map<String, Object> result(int reset) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("namespace", connection.namespace());
            m.put("limitsReset", reset);
            return m;
        }
    }
}
