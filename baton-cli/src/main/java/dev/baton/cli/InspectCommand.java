package dev.baton.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code baton inspect}: not built yet. */
@Command(name = "inspect", mixinStandardHelpOptions = true, description = "(being built)")
final class InspectCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new CliFailure(ExitStatus.FAILURE, "inspect is not built yet");
    }
}
