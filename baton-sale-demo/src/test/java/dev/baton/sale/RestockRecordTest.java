package dev.baton.sale;

import org.junit.jupiter.api.Test;

import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RestockRecordTest {

    @Test
    void readsBackWhatItWrites() {
        RestockRecord run = new RestockRecord("f3a9c2", Instant.parse("2026-11-24T03:00:00.004Z"), 42);

        assertThat(RestockRecord.decode(run.encode())).isEqualTo(run);
    }

    @Test
    void rejectsAnEntryOfAnotherForm() {
        assertThatThrownBy(() -> RestockRecord.decode("only two")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only two");
    }
}
