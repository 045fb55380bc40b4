package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test kit's pages pass javadoc's doclint, all groups, without a single warning, in every build: javac's doclint
 * (in the compiler configuration) does not look at everything javadoc documents, such as the serialized form, so
 * javadoc itself runs here as the release profile runs it (packages on the class path), in a few seconds.
 */
class ApiDocumentationTest {

    @Test
    void javadocFindsNothingToWarnAbout(@TempDir Path pages) {
        Path sources = Path.of("src", "main", "java");
        assertThat(sources.resolve("dev").resolve("baton").resolve("test")).as("run from the module's directory")
                .isDirectory();
        // java.util.spi.ToolProvider, as in baton-core, whose tests run inside a module that reads no javax.tools.
        ToolProvider javadoc = ToolProvider.findFirst("javadoc").orElseThrow();
        StringWriter output = new StringWriter();
        int exit;
        try (PrintWriter writer = new PrintWriter(output)) {
            exit = javadoc.run(writer, writer, "-quiet", "-Xdoclint:all", "-Werror", "-d", pages.toString(),
                    "-classpath", System.getProperty("java.class.path"), "-sourcepath", sources.toString(),
                    "-subpackages", "dev.baton.test");
        }

        assertThat(output.toString()).as("javadoc's diagnostics").doesNotContain("warning").doesNotContain("error");
        assertThat(exit).as(output.toString()).isZero();
        assertThat(Files.exists(pages.resolve("dev").resolve("baton").resolve("test").resolve("RedisServer.html")))
                .as("the pages were written").isTrue();
    }
}
