//! Tests of the user-agent rules: each shipped list, order, and a user's file.

use super::*;

const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

fn class_of(rules: &Rules, ua: &str) -> Class {
    rules.classify(ua).class
}

#[test]
fn each_list_is_used_and_the_first_class_wins() {
    let rules = Rules::shipped().unwrap();
    let cases = [
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ChatGPT-User/1.0; +https://openai.com/bot)",
            Class::AiAnswer,
        ),
        (
            "Claude-User (claude-code/1.0.61; +https://support.anthropic.com/)",
            Class::AiAnswer,
        ),
        ("claude-code/2.0.14", Class::AiAnswer),
        (
            "Mozilla/5.0 (compatible; Perplexity-User/1.0)",
            Class::AiAnswer,
        ),
        (
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            Class::Search,
        ),
        (
            "Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)",
            Class::Search,
        ),
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2)",
            Class::Training,
        ),
        (
            "Mozilla/5.0 (compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
            Class::Training,
        ),
        ("CCBot/2.0 (https://commoncrawl.org/faq/)", Class::Training),
        (
            "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
            Class::OtherBot,
        ),
        (
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0 Safari/537.36",
            Class::OtherBot,
        ),
        ("curl/8.5.0", Class::NotBrowser),
        ("python-requests/2.31.0", Class::NotBrowser),
        ("Go-http-client/1.1", Class::NotBrowser),
        ("my-little-robot", Class::NotBrowser),
        ("", Class::NotBrowser),
        ("-", Class::NotBrowser),
        (CHROME, Class::Human),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
            Class::Human,
        ),
        (
            "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            Class::Human,
        ),
    ];
    for (ua, class) in cases {
        assert_eq!(class_of(&rules, ua), class, "{ua}");
    }
}

#[test]
fn matching_ignores_case_and_names_the_rule() {
    let rules = Rules::shipped().unwrap();
    let verdict = rules.classify("CHATGPT-USER/1.0");
    assert_eq!(verdict.class, Class::AiAnswer);
    let rule = verdict.rule.unwrap();
    assert_eq!(rule.pattern, "ChatGPT-User");
    assert_eq!(rule.source, SHIPPED_LABEL);
    assert!(rule.line > 30, "{rule:?}");
    assert_eq!(rules.classify(CHROME).rule, None);
}

#[test]
fn common_browsers_match_no_rule() {
    let rules = Rules::shipped().unwrap();
    for ua in [
        CHROME,
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
        "Mozilla/5.0 (Linux; Android 14; SM-S928B Build/UP1A.231005.007) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.81 Mobile Safari/537.36",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
    ] {
        assert_eq!(
            rules.classify(ua),
            Verdict {
                class: Class::Human,
                rule: None
            },
            "{ua}"
        );
    }
}

#[test]
fn a_user_file_adds_an_agent_and_overrides_a_shipped_rule() {
    let user = "# ours\n[ai-answer]\nAcmeDocsAgent\n\n[human]\ncurl/8.5.0-acme\n";
    let rules = Rules::with_user(user, "acme.rules").unwrap();
    let verdict = rules.classify("AcmeDocsAgent/0.3 (+https://acme.test)");
    assert_eq!(verdict.class, Class::AiAnswer);
    assert_eq!(
        verdict.rule.map(|rule| (rule.source.as_str(), rule.line)),
        Some(("acme.rules", 3))
    );
    assert_eq!(class_of(&rules, "curl/8.5.0-acme"), Class::Human);
    assert_eq!(class_of(&rules, "curl/8.5.0"), Class::NotBrowser);
    assert_eq!(
        class_of(&Rules::shipped().unwrap(), "AcmeDocsAgent/0.3"),
        Class::NotBrowser
    );
}

#[test]
fn a_bad_rules_file_is_named_with_its_line() {
    let err = Rules::with_user("AcmeDocsAgent\n", "acme.rules").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("acme.rules line 1: a pattern before any [section]"),
        "{err}"
    );
    let err = Rules::with_user("[ai]\nX\n", "acme.rules")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("line 1: unknown section [ai]") && err.contains("[ai-answer]"),
        "{err}"
    );
}

/// Each case was counted wrongly when rules matched anywhere in the user agent and a
/// browser marker anywhere made a browser.
#[test]
fn rules_match_whole_words_and_markers_only_at_the_start() {
    let rules = Rules::shipped().unwrap();
    let cases = [
        // Thunderbird's calendar: `NING/` (a crawler) inside `Lightning/`.
        (
            "Mozilla/5.0 (X11; Linux x86_64; rv:38.0) Gecko/20100101 Thunderbird/38.5.0 Lightning/4.0.5",
            Class::Human,
        ),
        // A feed fetcher that names Mozilla in brackets is not a browser.
        (
            "Digg Feed Fetcher 1.0 (Mozilla/5.0 (compatible; Digg Feed Fetcher))",
            Class::NotBrowser,
        ),
        ("Java/1.8.0_45 (Mozilla/5.0 compatible)", Class::NotBrowser),
        // Words ending in bot still call themselves robots.
        ("SomeNewBot/0.1 (+https://example.test)", Class::NotBrowser),
        (
            "Mozilla/5.0 (compatible; SomeNewBot/0.1; +https://example.test)",
            Class::NotBrowser,
        ),
        ("my-little-robot", Class::NotBrowser),
        (
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            Class::Search,
        ),
        // A word that only contains "bot" is not a robot.
        (
            "Mozilla/5.0 (Linux; Android 10; BOTTLE-X1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/80.0 Mobile Safari/537.36",
            Class::Human,
        ),
    ];
    for (ua, class) in cases {
        assert_eq!(class_of(&rules, ua), class, "{ua}");
    }
}

#[test]
fn a_star_lifts_the_word_boundary_and_a_bare_star_is_refused() {
    let user = "[other-bot]\n*fetcher\nexact\n";
    let rules = Rules::with_user(user, "mine.txt").unwrap();
    assert_eq!(class_of(&rules, "FeedFetcher/1.0"), Class::OtherBot);
    assert_eq!(class_of(&rules, "exact/1.0"), Class::OtherBot);
    assert_eq!(class_of(&rules, "inexact/1.0"), Class::NotBrowser);
    let err = Rules::with_user("[other-bot]\n**\n", "mine.txt").unwrap_err();
    assert_eq!(
        err.to_string(),
        "mine.txt line 2: a pattern of only `*`; write the words to match, such as *bot"
    );
}

/// Browsers that a log or a phone wrote with something before their marker, and the
/// robots that name a browser after their own name or in brackets (issue 22: 93.8% of
/// real browsers were counted human). Each was not a browser before.
#[test]
fn a_marker_counts_after_a_device_an_app_or_a_cut_but_not_after_a_bracket_or_comma() {
    let rules = Rules::shipped().unwrap();
    let human = [
        // Android's in-app browser of an app whose name ends in a robot word.
        "Mozilla/5.0 (Linux; Android 12; Pixel 6 Build/SQ3A.220705.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.0.0 Mobile Safari/537.36 ReceiptScanner/2.1",
        // A log that cut the start of the field.
        "AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
        "Android 12) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
        // A phone's name first.
        "Acme Phone 3G Opera/9.80 (J2ME/MIDP; Opera Mini/5.1; U; en)",
        // An app's own product token first.
        "Recipes/3.2.1 Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
        "xBrowser/2.0/Mozilla/5.0 (Linux; U; Android 4.0; en-us) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30",
        // A platform and a slash, as Java phones write it.
        "MIDP2/UCWEB8.1.0.1/50/999",
        // Browsers whose own first word is in brackets (uap-core's test agents).
        "IUC(U;iOS 5.1.1;Zh-cn;320*480;)/UCWEB7.9.0.94/41/997",
        "(Opera) Vodafone/1.0/HPiPAQDataMessenger/1.00.00 Browser/Opera/9.5 Profile/MIDP-2.0 Configuration/CLDC-1.1 Opera/9.5 (Microsoft Windows; PPC; Opera Mobi/1408; U; en)",
        // Spaces around every slash.
        "Mozilla / 5.0 (Linux; Android 9; Acme) AppleWebKit / 537.36 (KHTML, like Gecko) Chrome / 90.0 Mobile Safari / 537.36",
    ];
    for ua in human {
        assert_eq!(class_of(&rules, ua), Class::Human, "{ua}");
    }
    let not_browser = [
        "Some Feed Reader 2.0 (Mozilla/5.0 (compatible; Some Feed Reader))",
        "Anonymous, Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)",
        "Resizer/1.2.3, Mozilla/5.0 (Linux; Android 9) AppleWebKit/537.36 (KHTML, like Gecko)",
        "phone|Mozilla/5.0 (iPhone; CPU iPhone OS 8_7 like Mac OS X) AppleWebKit/535.47",
        "http://example.test/5.0 (Windows NT 6.1) AppleWebKit/537.36 (KHTML, like Gecko)",
    ];
    for ua in not_browser {
        assert_eq!(class_of(&rules, ua), Class::NotBrowser, "{ua}");
    }
}
