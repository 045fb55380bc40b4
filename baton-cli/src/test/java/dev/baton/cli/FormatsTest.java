package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Durations read and written, JSON, tables and URI redaction: what every command's input and output rest on. */
class FormatsTest {

    @Test
    void durationsAreReadAsOperatorsWriteThem() {
        assertThat(DurationConverter.parse("0")).isZero();
        assertThat(DurationConverter.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationConverter.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(DurationConverter.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(DurationConverter.parse("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(DurationConverter.parse("2d")).isEqualTo(Duration.ofDays(2));
        assertThat(DurationConverter.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
        for (String bad : List.of("", "s", "10", "-1s", "3 parsecs", "1x", "PT-1S", "1s2")) {
            assertThatThrownBy(() -> DurationConverter.parse(bad)).as(bad)
                    .isInstanceOf(CommandLine.TypeConversionException.class).hasMessageContaining("not a duration");
        }
    }

    @Test
    void durationsAreWrittenShort() {
        assertThat(HumanDuration.format(Duration.ofMillis(850))).isEqualTo("850ms");
        assertThat(HumanDuration.format(Duration.ofMillis(12_449))).isEqualTo("12.4s");
        assertThat(HumanDuration.format(Duration.ofSeconds(192))).isEqualTo("3m12s");
        assertThat(HumanDuration.format(Duration.ofMinutes(125))).isEqualTo("2h05m");
        assertThat(HumanDuration.format(Duration.ofHours(76))).isEqualTo("3d04h");
        assertThat(HumanDuration.format(Duration.ofSeconds(-5))).isEqualTo("0ms");
    }

    @Test
    void jsonEscapesAndKeepsFieldOrder() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", "a\"b\\c\nd\u0001");
        m.put("n", 42L);
        m.put("ok", true);
        m.put("none", null);
        m.put("list", Arrays.asList(1, "x", null));
        assertThat(Json.write(m)).isEqualTo("{\"name\":\"a\\\"b\\\\c\\nd\\u0001\",\"n\":42,\"ok\":true,\"none\":null,"
                + "\"list\":[1,\"x\",null]}");
        assertThatThrownBy(() -> Json.write(new Object())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tablesAlignTheirColumns() {
        StringWriter text = new StringWriter();
        new Table("KIND", "NAME").row("lock", "a-long-name").row("semaphore", null)
                .print(new PrintWriter(text, true), new OutputOptions());
        assertThat(text.toString().lines()).containsExactly(
                "KIND       NAME",
                "lock       a-long-name",
                "semaphore  -");
        assertThatThrownBy(() -> new Table("A").row("1", "2")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void uriUserInfoIsNeverShown() {
        assertThat(ConnectionOptions.redacted("redis://user:secret@host:6379/0")).isEqualTo("redis://***@host:6379/0");
        assertThat(ConnectionOptions.redacted("redis://host:6379")).isEqualTo("redis://host:6379");
    }
}
