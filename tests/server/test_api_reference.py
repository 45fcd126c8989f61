from server.api_reference import DOC, PROTO, reference, updated_doc


def test_every_proto_field_is_documented_in_both_places():
    text = PROTO.read_text()
    assert "(see the message)" not in reference(text), "a field without a comment in the .proto"
    assert updated_doc(DOC.read_text(), text) == DOC.read_text(), "docs/api.md is stale: python -m server.api_reference"
