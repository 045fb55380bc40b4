package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RespTest {

    private static Object parse(String wire) throws IOException {
        return Resp.read(new ByteArrayInputStream(wire.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void encodesCommandsAsArraysOfBulkStrings() {
        assertThat(new String(Resp.encode("SET", "k", "", "é"), StandardCharsets.UTF_8))
                .isEqualTo("*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n$2\r\né\r\n");
    }

    @Test
    void parsesAndRendersEveryRespTwoType() throws IOException {
        assertThat(Resp.render(parse("+OK\r\n"))).isEqualTo("OK");
        assertThat(Resp.render(parse(":-42\r\n"))).isEqualTo("-42");
        assertThat(Resp.render(parse("$5\r\na\r\nbc\r\n"))).isEqualTo("a\r\nbc");
        assertThat(Resp.render(parse("$-1\r\n"))).isNull();
        assertThat(Resp.render(parse("*-1\r\n"))).isNull();
        assertThat(Resp.render(parse("*0\r\n"))).isEmpty();
        assertThat(parse("*3\r\n$1\r\na\r\n*2\r\n:1\r\n$-1\r\n+b\r\n")).isEqualTo(Arrays.asList("a", Arrays.asList(1L, null), "b"));
        assertThat(Resp.render(parse("*3\r\n$1\r\na\r\n*2\r\n:1\r\n$-1\r\n+b\r\n"))).isEqualTo("a\n1\n\nb");
        assertThat(Resp.render(List.of("x"))).isEqualTo("x");
    }

    @Test
    void errorRepliesThrowWithRedisMessage() {
        assertThatThrownBy(() -> parse("-WRONGTYPE Operation against a key\r\n"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("WRONGTYPE Operation against a key");
        assertThatThrownBy(() -> parse("*2\r\n+OK\r\n-ERR nested\r\n"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("ERR nested");
    }

    @Test
    void truncatedOrUnknownInputIsAnIoError() {
        assertThatThrownBy(() -> parse("")).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> parse("$5\r\nab")).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> parse("+OK")).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> parse("%1\r\n")).isInstanceOf(IOException.class);
    }
}
