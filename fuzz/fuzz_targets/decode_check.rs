//! The client's side: any bytes a service could answer are a value or an error, never a
//! panic, and no error message carries a control character to the terminal. Shared by the
//! fuzz target and by `tests/fuzz_corpus.rs`, which replays the corpus in CI.

use docdeck::api::{ApiError, DateParam, ErrorBody, Job, VisitorsPage, VisitorsQuery};

pub fn check(data: &[u8]) {
    let Some((&first, body)) = data.split_first() else {
        return;
    };
    let _ = serde_json::from_slice::<Job>(body);
    if let Ok(page) = serde_json::from_slice::<VisitorsPage>(body) {
        let again = serde_json::to_vec(&page).expect("a decoded page encodes");
        assert_eq!(
            serde_json::from_slice::<VisitorsPage>(&again).expect("and decodes again"),
            page
        );
    }
    let _ = serde_json::from_slice::<ErrorBody>(body);
    let status = 400 + u16::from(first) % 200;
    let message = ApiError::from_status(status, None, body).to_string();
    assert!(
        !message.chars().any(|c| c.is_control() && c != '\n'),
        "{message:?}"
    );
    if let Err(err) = serde_json::from_slice::<Job>(body) {
        let message = ApiError::decode(200, &err, body).to_string();
        assert!(
            !message.chars().any(|c| c.is_control() && c != '\n'),
            "{message:?}"
        );
    }
    if let Ok(text) = std::str::from_utf8(body) {
        if let Ok(date) = DateParam::parse("dateFrom", text) {
            let again: DateParam = date.to_string().parse().expect("a parsed date round-trips");
            assert_eq!(again.instant(), date.instant());
        }
        let pairs: Vec<(&str, &str)> = text
            .split('&')
            .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
            .collect();
        if let Ok(query) = VisitorsQuery::from_pairs(pairs) {
            let sent = query.to_pairs();
            let again = VisitorsQuery::from_pairs(sent.iter().map(|(k, v)| (*k, v.as_str())))
                .expect("a query the service accepts is sent as one it accepts");
            assert_eq!(again, query);
        }
    }
}
