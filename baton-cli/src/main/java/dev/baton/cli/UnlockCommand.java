package dev.baton.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code baton unlock}: not built yet. */
@Command(name = "unlock", mixinStandardHelpOptions = true, description = "(being built)")
final class UnlockCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new CliFailure(ExitStatus.FAILURE, "unlock is not built yet");
    }
}
