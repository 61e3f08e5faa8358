" SPDX-License-Identifier: GPL-3.0-or-later
" The steps of T600-vim on test/corpora/emacs (user Maildex Tester <tester@example.org>), run in this
" order by harness.vim in Vim and in Neovim, over each transport. Screens are compared with
" test/expected/vim/NAME.out; what the plugin changed is checked with `maildex` itself.

" :help maildex, from the help tags of the plugin's doc/ (a copy of editors/vim made by the test).
function! Step_00_help() abort
  execute 'helptags' fnameescape($MAILDEX_VIM_PLUGIN . '/doc')
  help maildex-search
  call assert_equal('maildex.txt', fnamemodify(bufname('%'), ':t'))
  call assert_match('\*maildex-search\*', getline('.'))
  helpclose
endfunction

" The start page: counts of the saved searches (and the config's query.lists) and of every tag.
function! Step_01_hello() abort
  Maildex
  " the parts arrive in any order: the page is complete when every count has come
  call Wait('getline(1) =~# "13 messages" && search("  lists$", "nw") > 0 && search("signed$", "nw") > 0'
        \ . ' && search("^ \\{9}  \\S", "nw") == 0')
  call AssertScreen('01-hello')
endfunction

" Enter on "inbox" lists its threads, newest first, as they stream in.
function! Step_02_search() abort
  call search('  inbox$')
  call Keys("\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/tag:inbox', bufname('%'))
  call AssertScreen('02-search-inbox')
endfunction

" Pages: with three lines a page only three are drawn until the user moves on; <Space> draws more.
function! Step_03_pages() abort
  let g:maildex_page_lines = 3
  Maildex *
  call Wait('exists("b:maildex_search") && b:maildex_search.done')
  call assert_equal(3, line('$'))
  call assert_equal(4, len(b:maildex_search.pending))
  call Keys("\<Space>")
  call assert_inrange(6, 8, line('$'))
  call Keys("\<Space>\<Space>\<Space>")
  call assert_equal(8, line('$'))
  call assert_equal('End of search results.', getline('$'))
  unlet g:maildex_page_lines
  call Keys('o')
  call Wait('getline("$") ==# "End of search results."')
  call assert_match('Garden party on Saturday', getline(1))
  call Keys('q')
endfunction

" A thread: header lines, indented replies, the long quote and the signature folded.
function! Step_04_thread() abort
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call search('Garden party')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call assert_equal('maildex://thread/' . matchstr(bufname('%'), '\x\{16}$'), bufname('%'))
  call AssertScreen('04-thread-garden')
  let l:citation = search('^ *>', 'nw')
  let l:folds = []
  for l:lnum in range(1, line('$'))
    if foldclosed(l:lnum) == l:lnum
      call add(l:folds, l:lnum . ': ' . substitute(foldtextresult(l:lnum), '\s\+$', '', ''))
    endif
  endfor
  call AssertLines('04-folds', l:folds)
endfunction

" n and p walk the messages; Enter folds a message to its header line and opens it again.
function! Step_05_navigate() abort
  call cursor(1, 1)
  call Keys('n')
  call assert_match('^ Bob Builder', getline('.'))
  call Keys('nn')
  call assert_match('Maildex Tester', getline('.'))
  call Keys('p')
  call assert_match('^  Carol', getline('.'))
  call Keys("\<CR>")
  call assert_equal(line('.'), foldclosed('.'))
  call Keys("\<CR>")
  call assert_equal(-1, foldclosed('.'))
endfunction

" Walking onto Carol's unread message marked it read, as notmuch.el does; u toggles it.
function! Step_06_unread() abort
  call search('^  Carol <')
  call Wait('getline(".") =~# "(inbox)$"')
  call assert_equal([], Maildex('search --output=messages tag:unread and id:garden-3@example.net'))
  call Keys('u')
  call Wait('getline(".") =~# "(inbox unread)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:unread and id:garden-3@example.net'))
endfunction

" Tags from the thread (+ with its prompt), the list line updated in place when we go back.
function! Step_07_tag_thread() abort
  call search('^  Carol <')
  call Keys("+party later\<CR>")
  call Wait('getline(".") =~# "(inbox later party unread)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:party and tag:later'))
  call Keys("-lat\<Tab>\<CR>")
  call Wait('getline(".") =~# "(inbox party unread)$"')
  call Keys('q')
  call assert_equal('maildex://search/tag:inbox', bufname('%'))
  call Wait('getline(".") =~# "(inbox party unread)$"')
  call assert_match('Garden party on Saturday (inbox party unread)$', getline('.'))
endfunction

" From the list: + on a line, a on a line (archive: -inbox), u, and the lines change in place.
function! Step_08_tag_list() abort
  call search('Spring newsletter')
  call Keys("+news\<CR>")
  call Wait('getline(".") =~# "(inbox news unread)$"')
  call assert_equal(['thread:' . b:maildex_search.items[line('.') - 1].thread],
        \ Maildex('search --output=threads tag:news'))
  call Keys('u')
  call Wait('getline(".") =~# "(inbox news)$"')
  call Keys('a')
  call Wait('getline(line(".") - 1) =~# "(news)$"')
  call assert_equal([], Maildex('search --output=threads tag:news and tag:inbox'))
  call AssertScreen('08-search-tagged')
endfunction

" The HTML alternative is a hidden button; Enter shows it through the converter.
function! Step_09_html() abort
  Maildex tag:news
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('text/html (hidden)')
  call Keys("\<CR>")
  call Wait('search("HTML edition", "nw") > 0')
  call AssertScreen('09-thread-html')
  call Keys('q')
endfunction

" The PDF's button; s asks where to save it, and the file holds the attachment's bytes.
function! Step_10_attachment() abort
  Maildex tag:attachment
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call AssertScreen('10-thread-attachment')
  call search('minutes.pdf')
  let l:path = $MAILDEX_VIM_OUT . '/saved.pdf'
  call Keys("s\<C-u>" . l:path . "\<CR>")
  call Wait('getfsize($MAILDEX_VIM_OUT . "/saved.pdf") == getfsize($MAILDEX_VIM_CORPUS . "/minutes.pdf")')
  call assert_equal(readfile($MAILDEX_VIM_CORPUS . '/minutes.pdf', 'B'), readfile(l:path, 'B'))
  call Keys('q')
endfunction

" The signed message says whose signature it is; the encrypted one is decrypted (the test's keys).
function! Step_11_signed() abort
  Maildex tag:signed
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call AssertScreen('11-thread-signed')
  call Keys('q')
  Maildex tag:encrypted
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) =~# "(encrypted inbox)$"')
  call AssertScreen('11-thread-encrypted')
  call Keys('q')
endfunction

" Reply to all from the thread: the headers maildex reply gives, the quote, sent through the mock
" sendmail, the copy filed with maildex insert in the mail root's Sent/ (T600 names it as mbsync
" does; tagged sent, no lowercase sent/ made), the original tagged replied.
function! Step_12_reply() abort
  Maildex id:minutes-2@example.org
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('^ Alice Example')
  call Keys('R')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call AssertScreen('12-reply')
  call Keys("GoSee you there.\<Esc>")
  call Keys("\<C-c>\<C-c>")
  call Wait('len(Maildex("search --output=files folder:Sent and subject:minutes")) == 1')
  let l:sent = readfile(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1)[0])
  call assert_equal(['-t -oi'], readfile(glob($MAILDEX_VIM_OUT . '/sent-*.args', 0, 1)[0]))
  call assert_notequal(-1, index(l:sent, 'Subject: Re: Minutes of the meeting'))
  call assert_notequal(-1, index(l:sent, 'In-Reply-To: <minutes-2@example.org>'))
  call assert_notequal(-1, index(l:sent, 'See you there.'))
  call Wait('Maildex("search --output=messages tag:replied and id:minutes-2@example.org") == ["id:minutes-2@example.org"]')
  let l:filed = Maildex('search --output=messages tag:sent and folder:Sent and subject:minutes and not tag:inbox')
  call assert_equal(1, len(l:filed))
  call assert_equal(l:sent, readfile(Maildex('search --output=files ' . l:filed[0])[0]))
  call assert_match('^' . $MAIL_DIR . '/Sent/cur/', Maildex('search --output=files ' . l:filed[0])[0])
  call assert_false(isdirectory($MAIL_DIR . '/sent'), 'a lowercase sent/ was made')
endfunction

" A new message: the To line completes from maildex address, non-ASCII headers are encoded.
function! Step_13_compose() abort
  MaildexCompose
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Wait('maildex#address#ready()')
  call assert_equal('To: ', getline(2))
  call Keys("Aali\<C-x>\<C-o>\<Esc>")
  call assert_equal('To: Alice Example <alice@example.org>', getline(2))
  call Keys("4GA Grüße aus Köln\<Esc>Go Tschüß\<Esc>")
  call Keys(":MaildexSend\<CR>")
  call Wait('len(Maildex("search --output=files folder:Sent and subject:Köln")) == 1')
  let l:file = Maildex('search --output=files folder:Sent and subject:Köln')
  call assert_equal(['Grüße aus Köln'],
        \ map(Maildex('show --format=json folder:Sent and subject:Köln'), 'json_decode(v:val)[0][0][0].headers.Subject'))
  call assert_equal(['Maildex Tester <tester@example.org>	Alice Example <alice@example.org>'],
        \ map(Maildex('show --format=json folder:Sent and subject:Köln'),
        \ 'json_decode(v:val)[0][0][0].headers.From . "\t" . json_decode(v:val)[0][0][0].headers.To'))
  call assert_match('^Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe_aus_K=C3=B6ln?=$',
        \ readfile(l:file[0])[index(map(readfile(l:file[0]), 'v:val =~# "^Subject:"'), 1)])
endfunction

" A command that fails: its argv and message in the one error buffer.
function! Step_14_errors() abort
  call maildex#error#clear()
  Maildex and
  call Wait('getline("$") =~# "^The search failed"')
  MaildexErrors
  call assert_equal('maildex://errors', bufname('%'))
  call assert_match("^\\d\\d:\\d\\d:\\d\\d maildex search --format=json --format-version=5 --sort=newest-first and failed (exit status 1):$", getline(1))
  call assert_match('^    ', getline(2))
endfunction

" New mail while a list is open: the list refreshes itself (revision polling, or the server's events).
function! Step_15_refresh() abort
  let g:maildex_poll_interval = 100
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call Wait('maildex#poll#revision() !=# ""')
  call system('maildex insert --folder=lists/dev', readfile($MAILDEX_VIM_CORPUS . '/later/1000000014.dev3', 'b'))
  call Wait('search("Dave Developer, Erin", "nw") > 0 && getline(search("The build is broken", "nw")) =~# "\\[3/3\\]"', 5000)
  let g:maildex_poll_interval = 0
endfunction

" f forwards the message at the cursor: its headers and text inline, the subject as notmuch.el's.
function! Step_17_forward() abort
  Maildex tag:attachment
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call Keys('f')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('Subject: [Bob Builder] Minutes of the meeting', getline(4))
  call assert_notequal(0, search('^The minutes are attached\.$', 'nw'))
  call assert_notequal(0, search('^\[ minutes\.pdf: application/pdf (737 bytes) \]$', 'nw'))
  bwipeout!
endfunction

" g:maildex_html_command: the HTML part goes through the converter as a job, and is drawn when done.
function! Step_18_html_command() abort
  let g:maildex_html_command = ['sed', '-e', 's/<[^>]*>//g', '-e', 's/Spring/Autumn/']
  Maildex tag:news
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('text/html (hidden)')
  call Keys("\<CR>")
  call Wait('search("^Autumn is here: the HTML edition\\.$", "nw") > 0')
  unlet g:maildex_html_command
endfunction

" N on the start page runs `maildex new`: a failing one (a pre-new hook that exits 3) is reported as
" an error (ErrorMsg, v:errmsg, the error buffer) and nothing says it succeeded; then one that works.
function! Step_19_new_error() abort
  let l:hook = Maildex('config get database.hook_dir')[0] . '/pre-new'
  call mkdir(fnamemodify(l:hook, ':h'), 'p')
  call writefile(['#!/bin/sh', 'echo "the mail server is offline" >&2', 'exit 3'], l:hook)
  call setfperm(l:hook, 'rwxr-xr-x')
  call maildex#error#clear()
  messages clear
  Maildex
  call Wait('getline(1) =~# "You have \\d\\+ messages"')
  let v:errmsg = ''
  call Keys('N')
  call Wait('v:errmsg !=# ""', 10000)
  call assert_match('^maildex: new failed (exit status 1): the mail server is offline (:MaildexErrors)$', v:errmsg)
  call assert_match(' new failed (exit status 1):$', get(filter(maildex#error#log(), 'v:val =~# " new "'), 0, ''))
  call assert_equal([], filter(split(execute('messages'), "\n"), 'v:val =~# "^maildex new: "'))
  call delete(l:hook)
  call Keys('N')
  call Wait('!empty(filter(split(execute("messages"), "\n"), "v:val =~# \"^maildex new: \""))', 10000)
  call assert_equal(['maildex new: No new mail.'], filter(split(execute('messages'), "\n"), 'v:val =~# "^maildex new: "'))
  call Keys('q')
endfunction

" A list's n, p and G over threads not drawn yet (three a page): n past the last line drawn draws
" the next and goes there, p stops at the first, G draws every thread and goes to the end.
function! Step_20_list_keys() abort
  let g:maildex_page_lines = 3
  Maildex *
  call Wait('exists("b:maildex_search") && b:maildex_search.done')
  call assert_equal(3, line('$'))
  call cursor(1, 1)
  call Keys('nn')
  call assert_equal(3, line('.'))
  call Keys('n')
  call assert_equal(4, line('.'))
  call assert_notequal(-1, stridx(getline(4), b:maildex_search.items[3].subject))
  call Keys('3p')
  call assert_equal(1, line('.'))
  call Keys('p')
  call assert_equal(1, line('.'))
  call Keys('G')
  call assert_equal('End of search results.', getline('$'))
  call assert_equal(line('$'), line('.'))
  call assert_equal(len(b:maildex_search.items) + 1, line('$'))
  call Keys('n')
  call assert_equal(line('$'), line('.'), 'n stays on the last line')
  call Keys('p')
  call assert_equal(line('$') - 1, line('.'))
  call Keys('2G')
  call assert_equal(2, line('.'))
  unlet g:maildex_page_lines
  call Keys('q')
endfunction

" Z in a list: its query's messages as a tree, one line each with its place in the thread drawn
" as notmuch-tree draws it; Enter opens the thread on that message; tags change from the tree; Z
" in a thread: its tree. (Not the minutes' thread, which has the reply of Step_12, dated today.)
function! Step_21_tree() abort
  Maildex tag:inbox and not subject:minutes
  call Wait('getline("$") ==# "End of search results."')
  call Keys('Z')
  call Wait('&filetype ==# "maildextree" && getline("$") ==# "End of search results."')
  call assert_equal('maildex://tree/tag:inbox and not subject:minutes', bufname('%'))
  call AssertScreen('21-tree')
  call cursor(1, 1)
  call Keys('3n')
  call assert_equal(4, line('.'))
  call Keys('p')
  call assert_equal(3, line('.'))
  call search('  Carol  ')
  call Keys("\<CR>")
  call Wait('&filetype ==# "maildexshow" && getline(1) !~# "^Loading"')
  call assert_match('^  Carol <carol@example.net>', getline('.'))
  call Keys('q')
  call assert_equal('maildex://tree/tag:inbox and not subject:minutes', bufname('%'))
  call assert_match('  Carol ', getline('.'))
  call Keys("+treetag\<CR>")
  call Wait('getline(".") =~# " treetag)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:treetag'))
  call Keys('u')
  call Wait('getline(".") =~# "(inbox party treetag unread)$"')
  call assert_equal(['id:garden-3@example.net'], Maildex('search --output=messages tag:treetag and tag:unread'))
  call Keys('G')
  call assert_equal(line('$'), line('.'))
  call Keys('q')
  " from a thread
  Maildex id:dev-1@lists.example.org
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call Keys('Z')
  call Wait('&filetype ==# "maildextree" && getline("$") ==# "End of search results."')
  call assert_match('^maildex://tree/thread:\x\+$', bufname('%'))
  call AssertScreen('21-tree-thread')
  call Keys('q')
endfunction

" Files attached with :MaildexAttach and CTRL-C CTRL-A go out as base64 parts of a multipart/mixed
" message, byte for byte (a non-ASCII name as RFC 2231 says); a file that is gone stops the sending.
function! Step_22_attach() abort
  let l:notes = $MAILDEX_VIM_OUT . '/Notizen über Köln.txt'
  call writefile(['eins', 'zwei'], l:notes)
  MaildexCompose alice@example.org
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Keys("4GASending the minutes again\<Esc>GAHere they are.\<Esc>")
  execute 'MaildexAttach' fnameescape($MAILDEX_VIM_CORPUS . '/minutes.pdf')
  call assert_equal('Attach: ' . $MAILDEX_VIM_CORPUS . '/minutes.pdf', getline(5))
  call Keys("\<C-c>\<C-a>" . l:notes . "\<CR>")
  call assert_equal('Attach: ' . l:notes, getline(6))
  call maildex#error#clear()
  MaildexAttach /nonexistent/file.pdf
  call assert_match('^maildex: cannot attach /nonexistent/file.pdf', v:errmsg)
  call assert_equal('', getline(7))
  " a file that vanishes before sending: an error, nothing sent
  call append(6, 'Attach: ' . $MAILDEX_VIM_OUT . '/vanished.pdf')
  let l:sent = len(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1))
  call Keys("\<C-c>\<C-c>")
  call assert_match('^maildex: cannot attach .*/vanished.pdf', v:errmsg)
  call assert_equal(l:sent, len(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1)))
  7delete
  call Keys("\<C-c>\<C-c>")
  call Wait('len(Maildex("search --output=files folder:Sent and subject:again")) == 1')
  let l:id = Maildex('search --output=messages folder:Sent and subject:again')[0]
  let l:parts = json_decode(join(Maildex('show --format=json --part=1 ' . l:id), ''))
  call assert_equal('multipart/mixed', l:parts['content-type'])
  let l:body = l:parts.content
  call assert_equal(['text/plain', 'application/pdf', 'text/plain'], map(copy(l:body), 'v:val["content-type"]'))
  call assert_equal('Here they are.', l:body[0].content)
  call assert_equal(['minutes.pdf', 'Notizen über Köln.txt'], [l:body[1].filename, l:body[2].filename])
  call system('maildex show --format=raw --part=' . l:body[1].id . ' ' . l:id . ' > ' . shellescape($MAILDEX_VIM_OUT . '/attached.pdf'))
  call assert_equal(readfile($MAILDEX_VIM_CORPUS . '/minutes.pdf', 'B'), readfile($MAILDEX_VIM_OUT . '/attached.pdf', 'B'))
  call assert_equal(['eins', 'zwei'], Maildex('show --format=raw --part=' . l:body[2].id . ' ' . l:id))
  let l:eml = readfile(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1)[-1])
  call assert_notequal(-1, match(l:eml, "^Content-Disposition: attachment; filename\\*=UTF-8''Notizen%20%C3%BCber%20K%C3%B6ln.txt$"))
  call assert_equal(-1, match(l:eml, '^Attach:'))
endfunction

" Drafts, notmuch.el's way: :write files the buffer in Drafts/ (made, since the mail root has no
" drafts folder; never a lowercase drafts/) tagged draft; a second save tags the first deleted;
" CTRL-C CTRL-P saves and closes; e on the draft resumes it without the headers saving added, and
" sending it tags the draft deleted and files the message in Sent/.
function! Step_23_draft() abort
  MaildexCompose bob@example.com
  call Wait('&filetype ==# "mail.maildexcompose"')
  call Keys("4GAPlans for the party\<Esc>GAFirst thoughts.\<Esc>")
  call assert_equal(1, &modified)
  execute 'MaildexAttach' fnameescape($MAILDEX_VIM_CORPUS . '/minutes.pdf')
  " :write returns once the draft is in (so :wq and :x never close an unsaved one)
  write
  call assert_false(&modified, 'modified after :write')
  let l:drafts = Maildex('search --output=files tag:draft and subject:"Plans for the party"')
  call assert_equal(1, len(l:drafts))
  call assert_match('^' . $MAIL_DIR . '/Drafts/cur/', get(l:drafts, 0, ''))
  call assert_false(isdirectory($MAIL_DIR . '/drafts'), 'a lowercase drafts/ was made')
  let l:text = readfile(l:drafts[0])
  call assert_notequal(-1, index(l:text, 'X-Maildex-Draft: True'))
  call assert_notequal(-1, index(l:text, 'Attach: ' . $MAILDEX_VIM_CORPUS . '/minutes.pdf'))
  call assert_equal([], Maildex('search --output=messages ' . shellescape('tag:draft and subject:Plans and (tag:inbox or tag:unread)')))
  let l:first = Maildex('search --output=messages tag:draft and subject:Plans')
  call Keys("GoSecond thoughts.\<Esc>\<C-c>\<C-p>")
  call Wait('&filetype !=# "mail.maildexcompose"')
  call Wait('Maildex("search --output=messages tag:deleted and subject:Plans") == ' . string(l:first))
  call assert_equal(1, len(Maildex('search --output=messages tag:draft and subject:Plans')))
  Maildex tag:draft
  call Wait('getline("$") ==# "End of search results."')
  call search('Plans for the party')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call Keys('e')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call AssertScreen('23-draft-resumed')
  call Keys("\<C-c>\<C-c>")
  call Wait('len(Maildex("search --output=files folder:Sent and subject:Plans")) == 1')
  call Wait('Maildex("search --output=messages tag:draft and subject:Plans") == []')
  call assert_equal(2, len(Maildex('search --output=messages tag:deleted and tag:draft and subject:Plans')))
  let l:sent = readfile(glob($MAILDEX_VIM_OUT . '/sent-*.eml', 0, 1)[-1])
  call assert_equal(-1, match(l:sent, '^X-Maildex-Draft:'))
  call assert_notequal(-1, index(l:sent, 'Second thoughts.'))
  call assert_notequal(-1, match(l:sent, '^Content-Type: application/pdf; name="minutes.pdf"$'))
endfunction

" Where Fcc and drafts go: the folder the mail root has, spelt as the sync tool made it; a new
" Sent or Drafts only when there is none; g:maildex_fcc as the user names it.
function! Step_24_folders() abort
  let l:cases = [
        \ [['INBOX', 'Sent', 'Drafts', 'Trash'], 'Sent', 'Drafts'],
        \ [['.INBOX', '.Sent', '.Drafts'], '.Sent', '.Drafts'],
        \ [['INBOX', '[Gmail]/Sent Mail', '[Gmail]/Drafts', '[Gmail]/All Mail'], '[Gmail]/Sent Mail', '[Gmail]/Drafts'],
        \ [['INBOX', 'INBOX.Sent Items', 'INBOX.Draft'], 'INBOX.Sent Items', 'INBOX.Draft'],
        \ [['sent', 'archive/2020/sent', 'drafts'], 'sent', 'drafts'],
        \ [['INBOX', 'Sent Messages', 'Archive/Sent'], 'Sent Messages', 'Drafts'],
        \ [['INBOX', 'lists/dev'], 'Sent', 'Drafts'],
        \ ]
  for l:i in range(len(l:cases))
    let [l:folders, l:sent, l:drafts] = l:cases[l:i]
    let l:root = $MAILDEX_VIM_OUT . '/root' . l:i
    for l:folder in l:folders
      call mkdir(l:root . '/' . l:folder . '/cur', 'p')
    endfor
    call assert_equal([l:sent, l:drafts], [maildex#folders#find(l:root, 'sent'), maildex#folders#find(l:root, 'drafts')],
          \ join(l:folders))
  endfor
  let l:config = {'database.mail_root': $MAILDEX_VIM_OUT . '/root2'}
  call assert_equal(['insert', '--create-folder', '--folder=[Gmail]/Sent Mail', '+sent', '-unread', '-inbox'],
        \ maildex#folders#insert('sent', l:config))
  let g:maildex_fcc = 'Outbox +sent'
  call assert_equal(['insert', '--create-folder', '--folder=Outbox', '+sent'], maildex#folders#insert('sent', l:config))
  let g:maildex_fcc = ['Sent Items', '+sent', '-inbox']
  call assert_equal(['insert', '--create-folder', '--folder=Sent Items', '+sent', '-inbox'], maildex#folders#insert('sent', l:config))
  let g:maildex_fcc = ''
  call assert_equal([], maildex#folders#insert('sent', l:config))
  unlet g:maildex_fcc
endfunction

" The other keys, as :help maildex says: in a list l and t narrow the query, = runs it again with
" the cursor on its thread, r answers the sender; in a thread o opens the attachment with
" g:maildex_open_command, a archives the message and moves on, = reloads on the same message, x
" goes back; the start page's = draws it again and q closes it.
function! Step_25_keys() abort
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call Keys("lfrom:alice\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/(tag:inbox) and (from:alice)', bufname('%'))
  call Keys("tsigned\<CR>")
  call Wait('getline("$") ==# "End of search results."')
  call assert_equal('maildex://search/((tag:inbox) and (from:alice)) and (tag:signed)', bufname('%'))
  call assert_equal(2, line('$'))
  call assert_match('Signed release notes', getline(1))
  Maildex tag:inbox
  call Wait('getline("$") ==# "End of search results."')
  call search('Minutes of the meeting')
  let l:line = line('.')
  call Keys('=')
  call Wait('getline("$") ==# "End of search results." && line(".") == ' . l:line)
  call assert_match('Minutes of the meeting', getline('.'))
  call Keys('r')
  call Wait('&filetype ==# "mail.maildexcompose"')
  call assert_equal('To: Alice Example <alice@example.org>', getline(2))
  bwipeout!
  let g:maildex_open_command = ['sh', '-c', 'cp "$1" "$0"', $MAILDEX_VIM_OUT . '/opened.pdf']
  Maildex tag:attachment
  call Wait('getline("$") ==# "End of search results."')
  call Keys("\<CR>")
  call Wait('getline(1) !~# "^Loading"')
  call search('minutes.pdf')
  call Keys('o')
  call Wait('getfsize($MAILDEX_VIM_OUT . "/opened.pdf") == getfsize($MAILDEX_VIM_CORPUS . "/minutes.pdf")')
  call assert_equal(readfile($MAILDEX_VIM_CORPUS . '/minutes.pdf', 'B'), readfile($MAILDEX_VIM_OUT . '/opened.pdf', 'B'))
  unlet g:maildex_open_command
  call cursor(1, 1)
  call Keys('a')
  call assert_match('^ Alice Example', getline('.'))
  call Wait('Maildex("search --output=messages id:minutes-1@example.com and tag:inbox") == []')
  call Keys('=')
  call Wait('b:maildex_show.loaded && getline(".") =~# "^ Alice Example"')
  call Keys('x')
  call assert_equal('maildex://search/tag:attachment', bufname('%'))
  Maildex
  call Wait('getline(1) =~# "You have \\d\\+ messages"')
  call maildex#util#set_lines(bufnr('%'), 1, ['scribbled'], 0)
  call Keys('=')
  call Wait('getline(1) =~# "You have \\d\\+ messages"')
  call Keys('q')
  call assert_notequal('maildex://hello', bufname('%'))
endfunction
