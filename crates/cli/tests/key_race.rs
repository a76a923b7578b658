//! Many processes starting together on a new home agree on one signing key: every token one of
//! them hands out is accepted by any other process.

mod support;

use support::{Sandbox, continue_token, ran};

const PROCESSES: usize = 16;
const ROUNDS: usize = 4;

#[test]
fn processes_racing_on_a_new_home_sign_with_one_key() {
    for round in 0..ROUNDS {
        let sandbox = Sandbox::new();
        let starts: Vec<_> = (0..PROCESSES)
            .map(|process| {
                sandbox.spawn(&["start", "dev-cycle", "--goal", &format!("round {round}, process {process}")])
            })
            .collect();
        let tokens: Vec<String> =
            starts.into_iter().map(|child| continue_token(&ran(&child.wait_with_output().unwrap()).ok())).collect();
        let continues: Vec<_> =
            tokens.iter().map(|token| sandbox.spawn(&["continue", token, "--notes", "planned"])).collect();
        for child in continues {
            let answer = ran(&child.wait_with_output().unwrap());
            assert_eq!(
                answer.code, 0,
                "round {round}: a token from another process is refused:\n{}{}",
                answer.stdout, answer.stderr
            );
        }
    }
}
